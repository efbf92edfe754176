import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readdirSync, readSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_READ_CAP, FileRefused, readCapped, type FileSource, type ReadOptions } from '../core/ingest/scan';
import { walkFiles, type DirEntry } from '../core/ingest/walk';
import { folderStamp, type FolderListings } from './folderListings';

/**
 * Node's fs behind the core's FileSource: used by the CLI, the language server and benchmarks.
 * Every read resolves the path (symlinks included) and refuses what lands outside the root or is
 * not a regular file; it opens without blocking (a FIFO named by data cannot hang the scan) and
 * reads at most the cap asked for.
 */
/**
 * Listed files up to this size are read with synchronous calls, in slices that give the event
 * loop back every few milliseconds: on a local disk a thread-pool round trip per call cost 7× the
 * read itself (bench/workspace), and result files are almost always this small.
 */
const SMALL = 1024 * 1024;
/** Read into, then decoded; nothing awaits between the two, so one serves every source. */
let smallBuffer: Buffer | null = null;
const SLICE_MS = 8;
let sliceStart = 0;
/** Yields to the event loop when the current synchronous slice has run long enough. */
async function slice(): Promise<void> {
  await breather();
}
/** A promise that resolves once the event loop has turned, when the current synchronous slice has run long enough; else undefined. */
function breather(): Promise<void> | undefined {
  const now = performance.now();
  if (!sliceStart) sliceStart = now;
  if (now - sliceStart < SLICE_MS) return undefined;
  return new Promise<void>(r =>
    setImmediate(() => {
      sliceStart = performance.now();
      r();
    }),
  );
}

/** `listings`: folder listings kept from an earlier walk (the CLI's `--cache`); an unchanged folder is stamped, not read. */
export function nodeFileSource(root: string, opts: { listings?: FolderListings } = {}): FileSource {
  const abs = path.resolve(root);
  const listings = opts.listings;
  // The walk's paths are its own (posix, relative, no '..'): joined without path.join's
  // normalising, a tenth of a results tree's walk.
  const under = (rel: string) => (rel ? `${abs}${path.sep}${rel}` : abs);
  const readDir = (dir: string): DirEntry[] =>
    readdirSync(dir, { withFileTypes: true }).map(e => ({
      name: e.name,
      dir: e.isDirectory(),
      file: e.isFile(),
      link: e.isSymbolicLink(),
    }));
  let realRoot: Promise<string> | null = null;
  const inside = (base: string, p: string) => p === base || p.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
  /**
   * A file of the listing (a regular file, found by walking real folders), read at once when it is
   * small: opened without blocking and without following a link put there since, sized by the
   * open file itself. Undefined for a larger file (read asynchronously, capped).
   */
  const readListed = (rel: string, opts: ReadOptions): string | undefined => {
    const fd = openSync(under(rel), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new FileRefused(`${rel} is not a regular file: not read`);
      opts.onStat?.({ size: st.size, mtimeMs: st.mtimeMs });
      if (st.size > Math.min(SMALL, opts.maxBytes ?? DEFAULT_READ_CAP)) return undefined;
      // One buffer for every small read (the text is a copy): a buffer per file was a quarter of
      // a scan's garbage, counted as external memory that hastens collections.
      const buf = (smallBuffer ??= Buffer.allocUnsafeSlow(SMALL));
      const n = st.size ? readSync(fd, buf, 0, st.size, 0) : 0;
      return buf.toString('utf8', 0, n);
    } finally {
      closeSync(fd);
    }
  };
  return {
    groupedByFolder: true,
    readListedNow: (rel, opts = {}) => (rel.split('/').includes('..') ? undefined : readListed(rel, opts)),
    breather: () => breather(),
    list: (signal, lopts) =>
      walkFiles(
        async rel => {
          await slice();
          const dir = under(rel);
          if (!listings) return readDir(dir);
          // Stamped before it is read: a change made after the stamp moves the stamp, so a
          // listing is never kept under a stamp older than what it missed. The root may be a link.
          const st = rel ? lstatSync(dir) : statSync(dir);
          if (!st.isDirectory()) throw new Error(`${rel} is no longer a folder`);
          const stamp = folderStamp(st);
          const kept = listings.get(rel, stamp);
          if (kept) return kept;
          const entries = readDir(dir);
          listings.set(rel, stamp, entries, Math.max(st.mtimeMs, st.ctimeMs));
          return entries;
        },
        async rel => {
          await slice();
          const s = statSync(under(rel));
          return { size: s.size, mtimeMs: s.mtimeMs };
        },
        signal,
        lopts?.statOnRead ? name => name.endsWith('.json') || name.endsWith('.jsonl') : undefined,
      ),
    async readText(rel: string, opts: ReadOptions = {}) {
      let real: string;
      if (opts.listed && !rel.split('/').includes('..')) {
        await slice();
        const text = readListed(rel, opts);
        if (text !== undefined) return text;
        // Larger files: read asynchronously below, capped.
        real = under(rel);
      } else {
        realRoot ??= fs.realpath(abs);
        const base = await realRoot;
        real = await fs.realpath(path.resolve(abs, rel));
        if (!inside(base, real)) throw new FileRefused(`${rel} resolves to ${real}, outside the scanned folder ${abs}: not read`);
      }
      // A listed file replaced by a link since the listing is not followed (O_NOFOLLOW).
      const fh = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK | (opts.listed ? constants.O_NOFOLLOW : 0));
      try {
        const st = await fh.stat();
        if (!st.isFile())
          throw new FileRefused(
            `${rel} is not a regular file (${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a file'}): not read`,
          );
        return await readCapped(rel, st.size, opts, async (pos, len) => {
          const buf = Buffer.alloc(len);
          const { bytesRead } = await fh.read(buf, 0, len, pos);
          return buf.subarray(0, bytesRead);
        });
      } finally {
        await fh.close();
      }
    },
    async stat(rel: string) {
      try {
        const s = await fs.lstat(path.join(abs, rel));
        return {
          path: rel,
          size: s.size,
          mtimeMs: s.mtimeMs,
          ...(s.isSymbolicLink() ? { kind: 'symlink' as const } : !s.isFile() ? { kind: 'special' as const } : {}),
        };
      } catch {
        return null;
      }
    },
    async describe(rel: string) {
      try {
        const real = await fs.realpath(path.resolve(abs, rel));
        const base = await (realRoot ??= fs.realpath(abs));
        const st = await fs.stat(real);
        return { target: inside(base, real) ? path.relative(base, real).split(path.sep).join('/') : real, inside: inside(base, real), regular: st.isFile() };
      } catch (e) {
        return { target: null, inside: false, regular: false, error: (e as NodeJS.ErrnoException).code ?? String(e) };
      }
    },
  };
}
