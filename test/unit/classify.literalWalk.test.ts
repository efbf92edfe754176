import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { LiteralScanner, useWasmWalk } from '../../src/core/classify/literalScanner';

type Hit = [start: number, end: number, line: number, mask: number, ids: number[]];

/** Every hit line a scanner reports for the whole buffer, and the newlines it counted. */
function hits(sc: LiteralScanner, buf: Uint8Array, firstLine = 1): { lines: Hit[]; newlines: number } {
  const lines: Hit[] = [];
  const newlines = sc.scanBytes(buf, 0, buf.length, firstLine, (s, e, l, m, ids) => lines.push([s, e, l, m, [...ids].sort((a, b) => a - b)]));
  return { lines, newlines };
}

/** The same literal groups as a scanner walking in WebAssembly (the default) and one walking in JavaScript. */
function pair(groups: string[][]): { wasm: LiteralScanner; js: LiteralScanner } {
  const wasm = new LiteralScanner(groups);
  useWasmWalk(false);
  try {
    return { wasm, js: new LiteralScanner(groups) };
  } finally {
    useWasmWalk(true);
  }
}

describe('classify: the literal walk in WebAssembly', () => {
  it('reports the same hit lines, bounds, masks, literals and newline count as the JavaScript walk, on random logs of four-part pieces and of long lines', () => {
    const literal = fc.stringMatching(/^[a-zA-Z:_ .é█0-9]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(fc.array(literal, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.oneof(literal, fc.constantFrom('\n', ' ', 'x', 'INFO ', 'É', '\r\n')), { minLength: 20, maxLength: 200 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom('lines', 'few newlines', 'one line'),
        (groups, words, seed, firstLine, shape) => {
          const { wasm, js } = pair(groups);
          // Words drawn with the literals themselves (in either case) until the piece is large
          // enough for the four-part walk (256 KB), a seeded generator choosing.
          let s = seed;
          const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
          const parts: string[] = [];
          let size = 0;
          while (size < 300 * 1024) {
            let w = words[Math.floor(rnd() * words.length)];
            if (rnd() < 0.3) w = rnd() < 0.5 ? w.toUpperCase() : w.toLowerCase();
            // Long lines (a piece with fewer than four cuts): their spans are read in four parts.
            if (shape !== 'lines') w = w.replace(/\n/g, ' ');
            if (shape === 'few newlines' && rnd() < 0.0005) w += '\n';
            parts.push(w);
            size += w.length;
          }
          const buf = Buffer.from(parts.join(''));
          assert.deepEqual(hits(wasm, buf, firstLine), hits(js, buf, firstLine));
        },
      ),
      { numRuns: 40, seed: 20261129 },
    );
  });

  it('a piece of more hit lines than the module records at once, each reaching many literals, is read whole', () => {
    // 8 000 hit lines (the module holds 4 096 before it hands them over), each with 20 literals.
    const lits = Array.from({ length: 40 }, (_, i) => `lit${i}x`);
    const { wasm, js } = pair([lits.slice(0, 20), lits.slice(20)]);
    const lines = Array.from({ length: 8000 }, (_, i) => (i % 3 === 2 ? 'quiet line' : Array.from({ length: 20 }, (_, k) => lits[(i + k * 7) % 40]).join(' ')));
    const buf = Buffer.from(lines.join('\n') + '\n');
    const a = hits(wasm, buf);
    assert.equal(a.newlines, 8000);
    assert.equal(a.lines.length, 8000 - Math.floor(8000 / 3));
    assert.ok(a.lines.every(h => h[4].length === 20));
    assert.deepEqual(a, hits(js, buf));
  });
});
