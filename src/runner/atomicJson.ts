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
export async function writeTextAtomic(file: string, text: string, fsImpl: Pick<typeof fs, 'open' | 'rename' | 'mkdir' | 'rm'> = fs): Promise<void> {
  await fsImpl.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  // Never through a link planted at the temporary name (O_NOFOLLOW); the rename replaces a link at the target itself, not what it points to.
  const handle = await fsImpl.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fsImpl.rename(tmp, file);
  } catch (e) {
    await fsImpl.rm(tmp, { force: true }).catch(() => undefined);
    throw new Error(`could not replace ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
