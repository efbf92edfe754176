import * as vscode from 'vscode';
import { fieldText } from '../core/classify';

export const LOG_SCHEME = 'bench-triage-log';

/**
 * Log text embedded in a result JSON file, as a read-only document of its own: the field's text,
 * exactly, so line numbers match the classifier's evidence. The name ends in `.vllm.log` so the
 * document gets the vllm-log language.
 */
export function embeddedLogUri(file: vscode.Uri, field: string): vscode.Uri {
  return file.with({ scheme: LOG_SCHEME, path: `${file.path}/${field}.vllm.log`, query: JSON.stringify({ scheme: file.scheme, field }) });
}

export class EmbeddedLogFs implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  private source(uri: vscode.Uri): { file: vscode.Uri; field: string } {
    const { scheme, field } = JSON.parse(uri.query) as { scheme: string; field: string };
    const suffix = `/${field}.vllm.log`;
    if (!uri.path.endsWith(suffix)) throw vscode.FileSystemError.FileNotFound(uri);
    return { file: uri.with({ scheme, path: uri.path.slice(0, -suffix.length), query: '' }), field };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { file, field } = this.source(uri);
    const doc = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(file)));
    const text = fieldText(doc, field);
    if (text === null) throw vscode.FileSystemError.FileNotFound(`${file.fsPath} has no text field ${field}`);
    return new TextEncoder().encode(text);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { file } = this.source(uri);
    const st = await vscode.workspace.fs.stat(file);
    return { type: vscode.FileType.File, ctime: st.ctime, mtime: st.mtime, size: st.size, permissions: vscode.FilePermission.Readonly };
  }

  watch(): vscode.Disposable { return new vscode.Disposable(() => undefined); }
  readDirectory(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  createDirectory(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  writeFile(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  delete(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
  rename(): never { throw vscode.FileSystemError.NoPermissions('read-only'); }
}
