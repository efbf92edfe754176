import type { ListedFile } from './scan';

/** What a directory listing says of one entry. */
export interface DirEntry { name: string; dir: boolean; file: boolean; link?: boolean }

/** Folders never worth walking for results. */
export const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.vscode', '.vscode-test']);

const INTERESTING = /\.(json|jsonl|diff|txt)$/;

/**
 * Walks a tree through the caller's `readDir`/`size` (Node fs, vscode.workspace.fs …). Sizes are
 * asked only for files the scan may read; unreadable folders and vanished files are passed over.
 * Symbolic links and special files (FIFOs, sockets, devices) are listed with their kind, never
 * followed here: the scan records them instead of reading them.
 */
export async function* walkFiles(
  readDir: (rel: string) => Promise<DirEntry[]>, size: (rel: string) => Promise<number>, signal?: AbortSignal,
): AsyncIterable<ListedFile> {
  const stack = [''];
  while (stack.length) {
    if (signal?.aborted) return;
    const rel = stack.pop()!;
    let entries: DirEntry[];
    try { entries = await readDir(rel); } catch { continue; }
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.link) { if (INTERESTING.test(e.name)) yield { path: p, size: 0, kind: 'symlink' }; continue; }
      if (e.dir) { if (!SKIP_DIRS.has(e.name)) stack.push(p); continue; }
      if (!e.file) { if (INTERESTING.test(e.name)) yield { path: p, size: 0, kind: 'special' }; continue; }
      if (!INTERESTING.test(e.name)) { yield { path: p, size: 0 }; continue; }
      try { yield { path: p, size: await size(p) }; } catch { /* vanished */ }
    }
  }
}
