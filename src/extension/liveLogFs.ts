import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';

export const RUN_LOG_SCHEME = 'bench-triage-run';

/** The read-only, live view of a run's log file on disk. */
export const liveLogUri = (file: vscode.Uri) => file.with({ scheme: RUN_LOG_SCHEME });

/**
 * Serves run logs read-only and tells VS Code when they grow, by polling their size while an
 * editor shows them — so a live run's log tails in the editor even where file watching is slow
 * or exhausted (remote hosts, many watchers), and nobody edits a log by accident.
 */
export class LiveLogFs implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  private path(uri: vscode.Uri): string { return uri.with({ scheme: 'file' }).fsPath; }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    try { return await fs.readFile(this.path(uri)); } catch { throw vscode.FileSystemError.FileNotFound(uri); }
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    try {
      const st = await fs.stat(this.path(uri));
      return { type: vscode.FileType.File, ctime: st.ctimeMs, mtime: st.mtimeMs, size: st.size, permissions: vscode.FilePermission.Readonly };
    } catch { throw vscode.FileSystemError.FileNotFound(uri); }
  }

  watch(uri: vscode.Uri): vscode.Disposable {
    let last = -1;
    const timer = setInterval(async () => {
      const size = (await fs.stat(this.path(uri)).catch(() => null))?.size ?? -1;
      if (last !== -1 && size !== last) this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
      last = size;
    }, 500);
    return new vscode.Disposable(() => clearInterval(timer));
  }

  readDirectory(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  createDirectory(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  writeFile(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  delete(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  rename(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
}
