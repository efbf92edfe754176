import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';

/**
 * The one base of the extension's read-only documents: subclasses say how a URI reads and stats;
 * everything that would write is refused. With `pollMs`, an open document is re-read when its
 * source changes (sizes compared), so logs being written tail in the editor even where file
 * watching is slow or exhausted.
 */
export abstract class ReadonlyFs implements vscode.FileSystemProvider {
  protected readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly pollMs = 0) {}

  abstract readFile(uri: vscode.Uri): Promise<Uint8Array>;
  abstract stat(uri: vscode.Uri): Promise<vscode.FileStat>;
  /** What the poll compares (a size, a list of sizes); null when gone. */
  protected async fingerprint(uri: vscode.Uri): Promise<string | null> {
    try {
      const s = await this.stat(uri);
      return `${s.size}:${s.mtime}`;
    } catch {
      return null;
    }
  }

  watch(uri: vscode.Uri): vscode.Disposable {
    if (!this.pollMs) return new vscode.Disposable(() => undefined);
    let last: string | null | undefined;
    let busy = false;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const now = await this.fingerprint(uri);
        if (last !== undefined && now !== last) this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
        last = now;
      } finally {
        busy = false;
      }
    }, this.pollMs);
    return new vscode.Disposable(() => clearInterval(timer));
  }

  readDirectory(): never {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  createDirectory(): never {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  writeFile(): never {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  delete(): never {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  rename(): never {
    throw vscode.FileSystemError.NoPermissions('read-only');
  }
  dispose(): void {
    this.changed.dispose();
  }
}

/** A stat of a local file as a read-only FileStat, or FileNotFound. */
export async function localStat(path: string, uri: vscode.Uri): Promise<vscode.FileStat> {
  try {
    const st = await fs.stat(path);
    return { type: vscode.FileType.File, ctime: st.ctimeMs, mtime: st.mtimeMs, size: st.size, permissions: vscode.FilePermission.Readonly };
  } catch {
    throw vscode.FileSystemError.FileNotFound(uri);
  }
}
