import * as vscode from 'vscode';
import type { FileSource } from '../core/ingest';
import { walkFiles } from '../core/ingest/walk';

/** The workspace seen through `vscode.workspace.fs`, so remote and virtual folders work too. */
export function vscodeFileSource(root: vscode.Uri): FileSource {
  const decoder = new TextDecoder('utf-8');
  const at = (rel: string) => (rel ? vscode.Uri.joinPath(root, rel) : root);
  return {
    list: signal => walkFiles(
      async rel => (await vscode.workspace.fs.readDirectory(at(rel))).map(([name, type]) => ({
        name, dir: !!(type & vscode.FileType.Directory) && !(type & vscode.FileType.SymbolicLink), file: !!(type & vscode.FileType.File),
      })),
      async rel => (await vscode.workspace.fs.stat(at(rel))).size,
      signal),
    readText: async p => decoder.decode(await vscode.workspace.fs.readFile(at(p))),
  };
}
