import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  CloseAction,
  ErrorAction,
  State,
  type LanguageClientOptions,
  type ServerOptions,
  type ErrorHandler,
  type Message,
} from 'vscode-languageclient/node';

/**
 * Starts the Bench Triage language server (dist/server.js) over IPC. If it dies it is restarted
 * once, with a message; a second death leaves it stopped, with an error that says how to restart.
 */
export class TriageLanguageClient implements vscode.Disposable {
  readonly client: LanguageClient;
  restarts = 0;

  constructor(context: vscode.ExtensionContext) {
    const module = vscode.Uri.joinPath(context.extensionUri, 'dist', 'server.js').fsPath;
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
    };
    const config = vscode.workspace.getConfiguration('benchTriage');
    const errorHandler: ErrorHandler = {
      error: (_e: Error, _m: Message | undefined, count: number | undefined) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
      closed: () => {
        if (this.restarts < 1) {
          this.restarts++;
          void vscode.window.showWarningMessage('Bench Triage: the language server stopped unexpectedly and was restarted.');
          return { action: CloseAction.Restart, handled: true };
        }
        void vscode.window.showErrorMessage('Bench Triage: the language server stopped again and was not restarted. Reload the window to start it.');
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'jsonl' },
        { scheme: 'file', pattern: '**/*.jsonl' },
        { scheme: 'file', language: 'json' },
        { scheme: 'file', language: 'markdown' },
      ],
      synchronize: { configurationSection: 'benchTriage' },
      initializationOptions: {
        hostGpus: config.get<number>('hostGpus', 1),
        hosts: config.get<unknown[]>('hosts'),
        blockedModels: config.get<string[]>('blockedModels'),
      },
      errorHandler,
      outputChannelName: 'Bench Triage Language Server',
    };
    this.client = new LanguageClient('benchTriage', 'Bench Triage', serverOptions, clientOptions);
  }

  /** Started on demand (first matching document), never during activation. */
  start(): Promise<void> {
    return this.client.state === State.Stopped ? this.client.start() : Promise.resolve();
  }

  dispose(): void {
    void this.client.stop();
  }
}
