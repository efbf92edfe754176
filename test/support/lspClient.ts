import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';

/** The language server over stdio, as any editor would run it. */
export class StdioServer {
  readonly proc: ChildProcess;
  readonly conn: ProtocolConnection;
  private readonly waiters: Array<{ uri: string; version?: number; resolve: (p: PublishDiagnosticsParams) => void }> = [];
  readonly published = new Map<string, PublishDiagnosticsParams>();
  exited: number | null = null;

  constructor(serverJs = path.resolve(__dirname, '../../dist/server.js'), nodeArgs: string[] = []) {
    this.proc = spawn(process.execPath, [...nodeArgs, serverJs, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.proc.on('exit', code => {
      this.exited = code ?? -1;
    });
    this.conn = createProtocolConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    this.conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.published.set(p.uri, p);
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const w = this.waiters[i];
        if (w.uri === p.uri && (w.version === undefined || p.version === w.version)) {
          this.waiters.splice(i, 1);
          w.resolve(p);
        }
      }
    });
    this.conn.listen();
  }

  async init(rootUri: string | null = null, initializationOptions: object = {}): Promise<void> {
    const died = new Promise<never>((_, reject) => this.proc.once('exit', code => reject(new Error(`language server exited (${code}) during initialize`))));
    await Promise.race([
      died,
      this.conn.sendRequest('initialize', {
        processId: process.pid,
        rootUri,
        capabilities: {},
        workspaceFolders: rootUri ? [{ uri: rootUri, name: 'ws' }] : null,
        initializationOptions,
      }),
    ]);
    await this.conn.sendNotification('initialized', {});
  }

  diagnostics(uri: string, version?: number): Promise<PublishDiagnosticsParams> {
    return new Promise(resolve => this.waiters.push({ uri, version, resolve }));
  }

  async open(uri: string, text: string, languageId = 'json', version = 1): Promise<PublishDiagnosticsParams> {
    const d = this.diagnostics(uri, version);
    await this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    return d;
  }

  async stop(): Promise<void> {
    try {
      await this.conn.sendRequest('shutdown');
      await this.conn.sendNotification('exit');
    } catch {
      /* already gone */
    }
    this.conn.dispose();
    this.proc.kill();
  }
}
