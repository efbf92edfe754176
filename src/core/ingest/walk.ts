import type { ListedFile } from './source';

/** What a directory listing says of one entry. */
export interface DirEntry {
  name: string;
  dir: boolean;
  file: boolean;
  link?: boolean;
}

/** Folders never worth walking for results. */
export const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.vscode', '.vscode-test']);

// Sized and stamped in the listing: files the scan may read (a manifest too: an index keys on its stamp).
const INTERESTING = /(?:\.(?:json|jsonl|diff|txt)|^bench-triage\.csv)$/;
/** Directories read at once: a results folder has tens of thousands of small ones. */
const PARALLEL = 32;

/**
 * Walks a tree through the caller's `readDir`/`size` (Node fs, vscode.workspace.fs …), many
 * directories at a time. Sizes are asked only for files the scan may read; unreadable folders and
 * vanished files are passed over. Symbolic links and special files (FIFOs, sockets, devices) are
 * listed with their kind, never followed here: the scan records them instead of reading them.
 * A folder's files come one after another (`FileSource.groupedByFolder`).
 */
export async function* walkFiles(
  readDir: (rel: string) => Promise<DirEntry[]>,
  size: (rel: string) => Promise<number | { size: number; mtimeMs: number }>,
  signal?: AbortSignal,
  statLater: (name: string) => boolean = () => false,
): AsyncIterable<ListedFile> {
  const pending = [''];
  // Each folder's files as one batch, yielded together: a reader knows a folder is complete
  // (siblings included) when the next file is in another one.
  const ready: ListedFile[][] = [];
  let active = 0;
  let wake: (() => void) | null = null;
  const visit = async (rel: string) => {
    try {
      const entries = await readDir(rel);
      const batch: ListedFile[] = [];
      const sized: Array<Promise<void>> = [];
      for (const e of entries) {
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (e.link) {
          // Links to result files, and links that look like folders (no extension): a linked
          // results folder is recorded as not read, never passed over without a word.
          if (INTERESTING.test(e.name) || !e.name.includes('.')) batch.push({ path: p, size: 0, kind: 'symlink' });
          continue;
        }
        if (e.dir) {
          if (!SKIP_DIRS.has(e.name)) pending.push(p);
          continue;
        }
        if (!e.file) {
          if (INTERESTING.test(e.name)) batch.push({ path: p, size: 0, kind: 'special' });
          continue;
        }
        if (!INTERESTING.test(e.name)) {
          batch.push({ path: p, size: 0 });
          continue;
        }
        if (statLater(e.name)) {
          batch.push({ path: p, size: -1 });
          continue;
        }
        sized.push(
          size(p).then(
            s => {
              batch.push(typeof s === 'number' ? { path: p, size: s } : { path: p, size: s.size, mtimeMs: s.mtimeMs });
            },
            () => undefined /* vanished */,
          ),
        );
      }
      await Promise.all(sized);
      if (batch.length) ready.push(batch);
    } catch {
      /* unreadable folder */
    }
    active--;
    wake?.();
  };
  while (pending.length || active || ready.length) {
    if (signal?.aborted) return;
    while (pending.length && active < PARALLEL) {
      active++;
      void visit(pending.pop()!);
    }
    while (ready.length) yield* ready.shift()!;
    if (active && !ready.length)
      await new Promise<void>(r => {
        wake = r;
      });
    wake = null;
  }
}
