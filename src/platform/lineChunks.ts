import { createReadStream } from 'node:fs';

/**
 * Reads a file as byte chunks for streaming consumers, with memory bounded whatever the file:
 * a chunk ends on a line boundary, except that a line longer than `maxLineBytes` is handed on in
 * pieces (a chunk that does not end with `\n` continues in the next one). Pieces of a long line
 * are gathered in a list and joined once, never re-copied per read (which made an 800 MB
 * one-line log quadratic).
 */
export async function* lineChunks(path: string, chunkBytes = 4 * 1024 * 1024, signal?: AbortSignal, maxLineBytes = chunkBytes): AsyncIterable<Buffer> {
  let pending: Buffer[] = [];
  let pendingLen = 0;
  const take = (tail?: Buffer): Buffer => {
    const out = pending.length === 0 ? tail! : Buffer.concat(tail ? [...pending, tail] : pending, pendingLen + (tail?.length ?? 0));
    pending = [];
    pendingLen = 0;
    return out;
  };
  for await (const raw of createReadStream(path, { highWaterMark: chunkBytes, signal })) {
    const piece = raw as Buffer;
    const cut = piece.lastIndexOf(10);
    if (cut === -1) {
      pending.push(piece);
      pendingLen += piece.length;
      if (pendingLen >= maxLineBytes) yield take();
      continue;
    }
    yield take(piece.subarray(0, cut + 1));
    if (cut + 1 < piece.length) {
      const rest = piece.subarray(cut + 1);
      pending.push(rest);
      pendingLen += rest.length;
    }
  }
  if (pendingLen) yield take();
}
