import { promises as fs, watch as fsWatch, type FSWatcher } from 'node:fs';
import * as vscode from 'vscode';

/**
 * The one base of the extension's read-only documents: subclasses say how a URI reads and stats;
 * everything that would write is refused. With `pollMs`, an open document is re-read when its
 * source changes (sizes compared), so logs being written tail in the editor even where file
 * watching is slow or exhausted. Where a subclass names the local file behind a URI, a change
 * notice from the OS triggers the same check at once (the poll stays, for what notices miss).
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

  /** The local file a URI reads, when there is one to watch. */
  protected localFile(_uri: vscode.Uri): string | null {
    return null;
  }

  watch(uri: vscode.Uri): vscode.Disposable {
    if (!this.pollMs) return new vscode.Disposable(() => undefined);
    let last: string | null | undefined;
    let busy = false;
    let again = false;
    const check = async () => {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        do {
          again = false;
          const now = await this.fingerprint(uri);
          if (last !== undefined && now !== last) this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
          last = now;
        } while (again);
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void check(), this.pollMs);
    void check();
    // Notices come per write; the editor re-reads the whole file per change, so at most one check per 100 ms.
    let lastNotice = 0;
    let pending: NodeJS.Timeout | null = null;
    const notice = () => {
      if (pending) return;
      pending = setTimeout(
        () => {
          pending = null;
          lastNotice = Date.now();
          void check();
        },
        Math.max(0, lastNotice + 100 - Date.now()),
      );
    };
    let watcher: FSWatcher | null = null;
    const file = this.localFile(uri);
    if (file)
      try {
        watcher = fsWatch(file, { persistent: false }, notice);
        watcher.on('error', () => watcher?.close());
      } catch {
        /* not there yet, or no notices here: the poll covers it */
      }
    return new vscode.Disposable(() => {
      clearInterval(timer);
      if (pending) clearTimeout(pending);
      watcher?.close();
    });
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
