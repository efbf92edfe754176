import * as vscode from 'vscode';
import { composeTranscript, transcriptFingerprint } from '../../app/transcript';
import { fromRunTranscriptUri } from '../uris';
import { ReadonlyFs } from './readonlyFs';

/**
 * A run's transcript (app/transcript): one read-only document with every phase's logs in order,
 * re-composed while the run writes, so the editor follows the run from queue to result.
 */
export class RunTranscriptFs extends ReadonlyFs {
  constructor() {
    super(700);
  }

  private dir(uri: vscode.Uri): string {
    const d = fromRunTranscriptUri(uri);
    if (!d) throw vscode.FileSystemError.FileNotFound(uri);
    return d;
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return new TextEncoder().encode((await composeTranscript(this.dir(uri))).text);
  }

  /** The mtime moves when the fingerprint does, so VS Code re-reads exactly then. */
  private readonly seen = new Map<string, { fingerprint: string; mtime: number }>();

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { fingerprint, bytes } = await transcriptFingerprint(this.dir(uri));
    const key = uri.toString();
    let s = this.seen.get(key);
    if (!s || s.fingerprint !== fingerprint) this.seen.set(key, (s = { fingerprint, mtime: Math.max(Date.now(), (s?.mtime ?? 0) + 1) }));
    return { type: vscode.FileType.File, ctime: 0, mtime: s.mtime, size: bytes, permissions: vscode.FilePermission.Readonly };
  }

  protected override async fingerprint(uri: vscode.Uri): Promise<string | null> {
    return (await transcriptFingerprint(this.dir(uri))).fingerprint;
  }
}
