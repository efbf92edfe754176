import type { Stats } from 'node:fs';
import type { DirEntry } from '../core/ingest/walk';
import { readTextBounded } from './boundedRead';

/**
 * Folder listings kept between runs of the CLI (`--cache DIR`), each under its folder's stamp:
 * a folder whose mtime, ctime and inode are unchanged holds the same entries, so the walk stats
 * it instead of reading it (a stat costs about a third of a listing; a results tree has tens of
 * thousands of folders). File contents are not covered: the walk still stats every result file.
 */
export interface FolderListings {
  /** The entries recorded under this stamp, if any. */
  get(rel: string, stamp: string): DirEntry[] | undefined;
  /** Records a listing read after its folder was stamped (a change after the stamp changes the stamp). */
  set(rel: string, stamp: string, entries: DirEntry[], changedMs: number): void;
  /** Folders recorded or confirmed by this walk only: folders gone since drop out when saved. */
  save(): Promise<void>;
}

export const folderStamp = (st: Stats) => `${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;

/**
 * A folder changed this recently may change again within the file system's timestamp granularity
 * without its stamp moving (as git's "racily clean" index entries): its listing is not kept.
 */
const SETTLED_MS = 2000;
const VERSION = 1;
/** Larger than any results tree's listings (10 000 commits take a few MB). */
const CAP = 256 * 1024 * 1024;

/** A listing as one string: each entry its kind letter and name, joined by '/' (no name holds one). */
function encode(entries: DirEntry[]): string {
  return entries.map(e => (e.link ? 'l' : e.dir ? 'd' : e.file ? 'f' : 'o') + e.name).join('/');
}

function decode(raw: string): DirEntry[] | undefined {
  if (!raw) return [];
  const out: DirEntry[] = [];
  for (const x of raw.split('/')) {
    const k = x.charCodeAt(0);
    // d, f, l, o
    if (x.length < 2 || (k !== 100 && k !== 102 && k !== 108 && k !== 111)) return undefined;
    out.push({ name: x.slice(1), dir: k === 100, file: k === 102, link: k === 108 });
  }
  return out;
}

/**
 * The listings kept in `file` for the folder `root`; a missing, unreadable or foreign file gives
 * an empty set (every folder is read, as without a cache). Written back atomically by `save`.
 */
export async function folderListings(
  file: string,
  root: string,
  write: (file: string, text: string) => Promise<void>,
  now: () => number = Date.now,
): Promise<FolderListings> {
  // On disk a flat array, [folder, stamp, listing, folder, …]: 10 000 commits' folders parse in tens of ms.
  let kept = new Map<string, [string, string]>();
  try {
    const raw = JSON.parse(await readTextBounded(file, { maxBytes: CAP, what: 'the folder listings' })) as { v?: unknown; root?: unknown; d?: unknown };
    if (raw && raw.v === VERSION && raw.root === root && Array.isArray(raw.d)) {
      const d = raw.d as unknown[];
      for (let i = 0; i + 2 < d.length; i += 3)
        if (typeof d[i] === 'string' && typeof d[i + 1] === 'string' && typeof d[i + 2] === 'string')
          kept.set(d[i] as string, [d[i + 1] as string, d[i + 2] as string]);
    }
  } catch {
    /* none kept, or not ours: every folder is read */
  }
  const seen = new Map<string, [string, string]>();
  let changed = false;
  return {
    get(rel, stamp) {
      const k = kept.get(rel);
      if (!k || k[0] !== stamp) return undefined;
      const entries = decode(k[1]);
      if (entries) seen.set(rel, k);
      return entries;
    },
    set(rel, stamp, entries, changedMs) {
      changed = true;
      if (now() - changedMs >= SETTLED_MS) seen.set(rel, [stamp, encode(entries)]);
    },
    async save() {
      if (!changed && seen.size === kept.size) return;
      const d: string[] = [];
      for (const [rel, [stamp, listing]] of seen) d.push(rel, stamp, listing);
      await write(file, JSON.stringify({ v: VERSION, root, d }));
      changed = false;
      kept = new Map(seen);
    },
  };
}
