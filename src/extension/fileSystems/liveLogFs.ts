import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { fromLiveLogUri } from '../uris';
import { localStat, ReadonlyFs } from './readonlyFs';

/** One run log file on disk, read-only, re-read while it grows. */
export class LiveLogFs extends ReadonlyFs {
  constructor() {
    super(500);
  }

  private file(uri: vscode.Uri): string {
    const f = fromLiveLogUri(uri);
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.fsPath;
  }

  protected override localFile(uri: vscode.Uri): string | null {
    return fromLiveLogUri(uri)?.fsPath ?? null;
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    try {
      return await fs.readFile(this.file(uri));
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
  }

  stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    return localStat(this.file(uri), uri);
  }
}
