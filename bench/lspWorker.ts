// bench/lsp measurement: the language server over stdio on the 4 MB real dataset.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { StdioServer } from '../test/support/lspClient';

(async () => {
  const file = process.argv[2];
  const repeat = Number(process.argv[3] ?? 5);
  const text = fs.readFileSync(file, 'utf8');
  const s = new StdioServer(path.resolve(__dirname, '../dist/server.js'));
  await s.init(null);
  const open: number[] = [],
    edit: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const uri = pathToFileURL(file).toString() + `?run=${i}`;
    let t0 = process.hrtime.bigint();
    const first = await s.open(uri, text, 'jsonl', 1);
    open.push(Number(process.hrtime.bigint() - t0) / 1e6);
    // One keystroke in the middle of the file, sent as an incremental change.
    const doc = TextDocument.create(uri, 'jsonl', 1, text);
    const at = doc.positionAt(text.indexOf('--num-prompts') + 2);
    const next = s.diagnostics(uri, 2);
    t0 = process.hrtime.bigint();
    await s.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: at, end: at }, text: 'x' }],
    });
    await next;
    edit.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await s.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    void first;
  }
  await s.stop();
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(text), openMs: med(open), editMs: med(edit), debounceMs: 50 }) + '\n');
})().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
