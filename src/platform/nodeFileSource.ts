import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FileRefused, readCapped, type FileSource, type ReadOptions } from '../core/ingest/scan';
import { walkFiles } from '../core/ingest/walk';

/**
 * Node's fs behind the core's FileSource: used by the CLI, the language server and benchmarks.
 * Every read resolves the path (symlinks included) and refuses what lands outside the root or is
 * not a regular file; it opens without blocking (a FIFO named by data cannot hang the scan) and
 * reads at most the cap asked for.
 */
export function nodeFileSource(root: string): FileSource {
  const abs = path.resolve(root);
  let realRoot: Promise<string> | null = null;
  const inside = (base: string, p: string) => p === base || p.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
  return {
    list: signal => walkFiles(
      async rel => (await fs.readdir(path.join(abs, rel), { withFileTypes: true })).map(e => ({ name: e.name, dir: e.isDirectory(), file: e.isFile(), link: e.isSymbolicLink() })),
      async rel => (await fs.stat(path.join(abs, rel))).size,
      signal),
    async readText(rel: string, opts: ReadOptions = {}) {
      realRoot ??= fs.realpath(abs);
      const base = await realRoot;
      const real = await fs.realpath(path.resolve(abs, rel));
      if (!inside(base, real)) throw new FileRefused(`${rel} resolves to ${real}, outside the scanned folder ${abs}: not read`);
      const fh = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const st = await fh.stat();
        if (!st.isFile()) throw new FileRefused(`${rel} is not a regular file (${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a file'}): not read`);
        return await readCapped(rel, st.size, opts, async (pos, len) => {
          const buf = Buffer.alloc(len);
          const { bytesRead } = await fh.read(buf, 0, len, pos);
          return buf.subarray(0, bytesRead);
        });
      } finally { await fh.close(); }
    },
    async describe(rel: string) {
      try {
        const real = await fs.realpath(path.resolve(abs, rel));
        const base = await (realRoot ??= fs.realpath(abs));
        const st = await fs.stat(real);
        return { target: inside(base, real) ? path.relative(base, real).split(path.sep).join('/') : real, inside: inside(base, real), regular: st.isFile() };
      } catch (e) { return { target: null, inside: false, regular: false, error: (e as NodeJS.ErrnoException).code ?? String(e) }; }
    },
  };
}
