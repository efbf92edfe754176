import * as vscode from 'vscode';
import type { FileSource, ListedFile } from '../core/ingest';

const SKIP = new Set(['node_modules', '.git', '.hg', '.svn', '.vscode-test']);

/** The workspace seen through `vscode.workspace.fs`, so remote and virtual folders work too. */
export function vscodeFileSource(root: vscode.Uri): FileSource {
  const decoder = new TextDecoder('utf-8');
  return {
    async *list(signal?: AbortSignal): AsyncIterable<ListedFile> {
      const stack = [''];
      while (stack.length) {
        if (signal?.aborted) return;
        const rel = stack.pop()!;
        let entries: [string, vscode.FileType][];
        try { entries = await vscode.workspace.fs.readDirectory(rel ? vscode.Uri.joinPath(root, rel) : root); } catch { continue; }
        for (const [name, type] of entries) {
          const p = rel ? `${rel}/${name}` : name;
          if (type & vscode.FileType.Directory) { if (!SKIP.has(name) && !(type & vscode.FileType.SymbolicLink)) stack.push(p); continue; }
          if (!(type & vscode.FileType.File)) continue;
          // Sizes matter only for result-like files; skip the stat for everything else.
          if (!/\.(json|jsonl|diff|txt)$/.test(name)) { yield { path: p, size: 0 }; continue; }
          try { yield { path: p, size: (await vscode.workspace.fs.stat(vscode.Uri.joinPath(root, p))).size }; } catch { /* vanished */ }
        }
      }
    },
    async readText(p: string): Promise<string> {
      return decoder.decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, p)));
    },
  };
}
