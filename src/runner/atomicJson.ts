import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Writes JSON so that a reader sees the old file or the new one, never half of either: write a
 * temporary file in the same folder, flush it to disk, then rename over the target. A crash
 * before the rename leaves the previous file intact (and a stray `.tmp` the next write replaces).
 */
export async function writeJsonAtomic(
  file: string,
  value: unknown,
  fsImpl: Pick<typeof fs, 'open' | 'rename' | 'mkdir' | 'rm'> = fs,
  mask: (text: string) => string = t => t,
  indent = 2,
): Promise<void> {
  await writeTextAtomic(file, mask(JSON.stringify(value, null, indent || undefined)) + '\n', fsImpl);
}

/** The same for any text (a saved answer: a header line and the bytes a command printed). */
export async function writeTextAtomic(
  file: string,
  text: string,
  fsImpl: Pick<typeof fs, 'open' | 'rename' | 'mkdir' | 'rm'> = fs,
  opts: { durable?: boolean } = {},
): Promise<void> {
  await replaceAtomic(file, fsImpl, opts, async handle => handle.writeFile(text));
}

/**
 * The same for a text given line by line (a cache of tens of MB, platform/jsonLinesDocument): the
 * lines go out through one reused buffer, never joined into one string and one buffer as large as
 * the file (fresh memory costs a page fault per 4 KB on a VM).
 */
export async function writeLinesAtomic(file: string, lines: Iterable<string>, opts: { durable?: boolean } = {}): Promise<void> {
  const CHUNK = 1024 * 1024;
  await replaceAtomic(file, fs, opts, async handle => {
    const buf = Buffer.allocUnsafe(CHUNK);
    let used = 0;
    const flush = async () => {
      for (let at = 0; at < used;) at += (await handle.write(buf, at, used - at)).bytesWritten;
      used = 0;
    };
    for (const line of lines) {
      // A UTF-16 unit takes at most 3 bytes in UTF-8.
      const most = line.length * 3 + 1;
      if (used + most > CHUNK) await flush();
      if (most > CHUNK) {
        const big = Buffer.from(`${line}\n`, 'utf8');
        for (let at = 0; at < big.length;) at += (await handle.write(big, at, big.length - at)).bytesWritten;
        continue;
      }
      used += buf.write(line, used, 'utf8');
      buf[used++] = 10;
    }
    await flush();
  });
}

/**
 * Writes through `fill` into a temporary beside `file`, then renames it over `file`. `durable`
 * (the default) flushes it to disk first; a cache, checked whenever it is read and recomputed when
 * it is not whole, leaves that to the system (an fsync of 100 MB was a tenth of `classify --cache`).
 */
async function replaceAtomic(
  file: string,
  fsImpl: Pick<typeof fs, 'open' | 'rename' | 'mkdir' | 'rm'>,
  opts: { durable?: boolean },
  fill: (handle: fs.FileHandle) => Promise<unknown>,
): Promise<void> {
  await fsImpl.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  // Never through a link planted at the temporary name (O_NOFOLLOW); the rename replaces a link at the target itself, not what it points to.
  const handle = await fsImpl.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW);
  try {
    await fill(handle);
    if (opts.durable !== false) await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fsImpl.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  await handle.close();
  try {
    await fsImpl.rename(tmp, file);
  } catch (e) {
    await fsImpl.rm(tmp, { force: true }).catch(() => undefined);
    throw new Error(`could not replace ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
