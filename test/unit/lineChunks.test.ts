import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { lineChunks } from '../../src/platform/lineChunks';

/** Every chunk copied out at once (chunks are views of one buffer, valid until the next is asked for). */
async function chunksOf(file: string, chunkBytes: number, maxLineBytes = chunkBytes): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of lineChunks(file, chunkBytes, undefined, maxLineBytes)) out.push(Buffer.from(c));
  return out;
}

describe('lineChunks: a file as chunks that end on lines', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'bt-chunks-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back every byte in order; a chunk ends with a newline unless its line is longer than maxLineBytes, and none is above a read plus that', async () => {
    const file = path.join(dir, 'f.log');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ minLength: 100, maxLength: 300 })), { maxLength: 60 }),
        fc.boolean(),
        fc.integer({ min: 8, max: 64 }),
        fc.integer({ min: 8, max: 128 }),
        async (lines, finalNewline, chunkBytes, maxLineBytes) => {
          const text = lines.join('\n') + (finalNewline && lines.length ? '\n' : '');
          const bytes = Buffer.from(text, 'utf8');
          writeFileSync(file, bytes);
          const chunks = await chunksOf(file, chunkBytes, maxLineBytes);
          assert.deepEqual(Buffer.concat(chunks), bytes);
          for (const [i, c] of chunks.entries()) {
            assert.ok(c.length > 0, 'no empty chunk');
            assert.ok(c.length <= chunkBytes + Math.max(chunkBytes, maxLineBytes), `chunk of ${c.length}`);
            if (c[c.length - 1] !== 10 && i < chunks.length - 1)
              assert.ok(c.length >= maxLineBytes, 'a chunk cut inside a line only when the line is that long');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an empty file gives nothing; a file without a newline gives its bytes', async () => {
    const empty = path.join(dir, 'empty.log');
    writeFileSync(empty, '');
    assert.deepEqual(await chunksOf(empty, 16), []);
    const one = path.join(dir, 'one.log');
    writeFileSync(one, 'no newline here');
    assert.equal(Buffer.concat(await chunksOf(one, 4)).toString(), 'no newline here');
  });

  it('stops when aborted', async () => {
    const file = path.join(dir, 'long.log');
    writeFileSync(file, 'line\n'.repeat(10_000));
    const ctl = new AbortController();
    let n = 0;
    await assert.rejects(async () => {
      for await (const _ of lineChunks(file, 64, ctl.signal)) if (++n === 3) ctl.abort();
    });
    assert.equal(n, 3);
  });
});
