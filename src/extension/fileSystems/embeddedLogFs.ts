import * as vscode from 'vscode';
import { fieldText } from '../../core/classify';
import { parseJson } from '../../core/ingest';
import { fromEmbeddedLogUri } from '../uris';
import { ReadonlyFs } from './readonlyFs';

/** Result files above this are not parsed for an embedded log (the scan refuses them too). */
const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/** The text of one field of a result JSON file, exactly, so line numbers match the classifier's evidence. */
export class EmbeddedLogFs extends ReadonlyFs {
  private source(uri: vscode.Uri): { file: vscode.Uri; field: string } {
    const s = fromEmbeddedLogUri(uri);
    if (!s) throw vscode.FileSystemError.FileNotFound(uri);
    return s;
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { file, field } = this.source(uri);
    const st = await vscode.workspace.fs.stat(file);
    if (st.size > MAX_RESULT_BYTES) throw vscode.FileSystemError.Unavailable(`${file.fsPath} is ${(st.size / 1048576).toFixed(0)} MB: open the file itself`);
    const parsed = parseJson(new TextDecoder().decode(await vscode.workspace.fs.readFile(file)));
    if (!parsed.ok) throw vscode.FileSystemError.Unavailable(`${file.fsPath} is not valid JSON (${parsed.message})`);
    const text = fieldText(parsed.value, field);
    if (text === null) throw vscode.FileSystemError.FileNotFound(`${file.fsPath} has no text field ${field}`);
    return new TextEncoder().encode(text);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { file } = this.source(uri);
    const st = await vscode.workspace.fs.stat(file);
    return { type: vscode.FileType.File, ctime: st.ctime, mtime: st.mtime, size: st.size, permissions: vscode.FilePermission.Readonly };
  }
}
