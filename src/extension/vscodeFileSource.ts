import * as vscode from 'vscode';
import { FileRefused, readCapped, type FileSource, type ReadOptions } from '../core/ingest';
import { walkFiles } from '../core/ingest/walk';

/**
 * The workspace seen through `vscode.workspace.fs`, so remote and virtual folders work too. Paths
 * with `..`, links and anything but a regular file are refused before a byte is read (there is no
 * realpath on a remote file system); reads are capped like Node's.
 */
export function vscodeFileSource(root: vscode.Uri): FileSource {
  const at = (rel: string) => (rel ? vscode.Uri.joinPath(root, rel) : root);
  return {
    groupedByFolder: true,
    list: signal =>
      walkFiles(
        async rel =>
          (await vscode.workspace.fs.readDirectory(at(rel))).map(([name, type]) => ({
            name,
            dir: !!(type & vscode.FileType.Directory) && !(type & vscode.FileType.SymbolicLink),
            file: (type & ~vscode.FileType.SymbolicLink) === vscode.FileType.File && !(type & vscode.FileType.SymbolicLink),
            link: !!(type & vscode.FileType.SymbolicLink),
          })),
        async rel => {
          const s = await vscode.workspace.fs.stat(at(rel));
          return { size: s.size, mtimeMs: s.mtime };
        },
        signal,
      ),
    async readText(rel: string, opts: ReadOptions = {}) {
      if (rel.split('/').some(s => s === '..') || rel.startsWith('/')) throw new FileRefused(`${rel} points outside the scanned folder: not read`);
      const st = await vscode.workspace.fs.stat(at(rel));
      if (st.type & vscode.FileType.SymbolicLink) throw new FileRefused(`${rel} is a symbolic link: not read`);
      if (st.type !== vscode.FileType.File) throw new FileRefused(`${rel} is not a regular file: not read`);
      // No ranged reads here: a file above the cap is refused rather than loaded whole.
      return readCapped(rel, st.size, { ...opts, whole: true }, async (pos, len) => (await vscode.workspace.fs.readFile(at(rel))).subarray(pos, pos + len));
    },
    async stat(rel: string) {
      try {
        const s = await vscode.workspace.fs.stat(at(rel));
        return {
          path: rel,
          size: s.size,
          mtimeMs: s.mtime,
          ...(s.type & vscode.FileType.SymbolicLink ? { kind: 'symlink' as const } : s.type !== vscode.FileType.File ? { kind: 'special' as const } : {}),
        };
      } catch {
        return null;
      }
    },
    async describe() {
      return { target: null, inside: false, regular: false, error: 'links are not followed in this workspace' };
    },
  };
}
