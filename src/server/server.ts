import { createConnection, ProposedFeatures, TextDocumentSyncKind } from 'vscode-languageserver/node';

/**
 * The Bench Triage language server. This first version only announces itself; checks of perf
 * commands, result files and rules arrive with the language-server issue.
 */
const connection = process.argv.includes('--stdio') ? createConnection(process.stdin, process.stdout) : createConnection(ProposedFeatures.all);
connection.onInitialize(() => ({
  capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental },
  serverInfo: { name: 'bench-triage', version: '0.1.0' },
}));
connection.listen();
