import { createReadStream } from 'node:fs';

/**
 * Reads a file as byte chunks that end on a line boundary (a few MB each), so that huge logs are
 * processed streaming with bounded memory. A line longer than a chunk is passed on whole.
 */
export async function* lineChunks(path: string, chunkBytes = 4 * 1024 * 1024, signal?: AbortSignal): AsyncIterable<Buffer> {
  let carry: Buffer | null = null;
  for await (const piece of createReadStream(path, { highWaterMark: chunkBytes, signal })) {
    const buf: Buffer = carry ? Buffer.concat([carry, piece as Buffer]) : (piece as Buffer);
    const cut = buf.lastIndexOf(10);
    if (cut === -1) { carry = buf; continue; }
    carry = cut + 1 < buf.length ? Buffer.from(buf.subarray(cut + 1)) : null;
    yield buf.subarray(0, cut + 1);
  }
  if (carry && carry.length) yield carry;
}
