// bench/ablateWorker: planning the ablation of the corpus's largest agent patch (split, units, every
// leave-one-out and each-alone variant's patch) against parsing the same patch alone, in one process.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { splitPatch } from '../src/core/patch';
import { partsOf, splitUnits, subsetPatch, unitMode } from '../src/core/ablate/units';
import { planAblation } from '../src/core/ablate/designs';
import { ddmin } from '../src/core/ablate/ddmin';

function patches(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) patches(p, out);
    else if (e.name === 'model_patch.diff') out.push(p);
  }
  return out;
}

const corpus = process.argv[2];
const iters = Number(process.argv[3] ?? 200);
const largest = patches(corpus).sort((a, b) => statSync(b).size - statSync(a).size)[0];
const text = readFileSync(largest, 'utf8');
const time = (f: () => void) => {
  const xs: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t = performance.now();
    f();
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
};
let units = 0,
  variants = 0;
const parseMs = time(() => void splitPatch(text));
const planMs = time(() => {
  const files = splitPatch(text);
  const u = splitUnits(files, unitMode(files));
  units = u.length;
  variants = 0;
  for (const design of ['leave-one-out', 'each-alone'] as const)
    for (const v of planAblation(u, { design, repeats: 3, estimateS: 900, gpus: 1 }).variants) {
      subsetPatch(files, partsOf(u, v.units));
      variants++;
    }
});
// Runs ddmin needs on the Docker suite's fixture (test/docker/ablation.test.ts: U1 ×1.6 providing
// fast_path, U2 ×1, U3 ×0.75, U4 ×1.3 needing fast_path) and on the demo's patch (×1.35, ×0.9, ×1),
// by the known effects as the oracle (a subset keeps when it is not slower than the full patch),
// against leave-one-out's: (units + 2) × repeats, and (2 + subsets) × repeats.
async function ddminRuns(speed: Record<string, number>, needs: Record<string, string>, repeats: number) {
  const ids = Object.keys(speed);
  const of = (s: string[]) => (s.some(u => needs[u] && !s.includes(needs[u])) ? 0 : s.reduce((x, u) => x * speed[u], 1));
  const full = of(ids);
  const r = await ddmin(ids, async s => (of(s) === 0 ? 'broken' : of(s) >= full * 0.98 ? 'keeps' : 'loses'), 4 * ids.length);
  return { subset: r.subset, minimise: (2 + r.tests.length) * repeats, leaveOneOut: (ids.length + 2) * repeats };
}
void (async () => {
  const fixture = await ddminRuns({ U1: 1.6, U2: 1, U3: 0.75, U4: 1.3 }, { U4: 'U1' }, 4);
  const demo = await ddminRuns({ U1: 1.35, U2: 0.9, U3: 1 }, {}, 1);
  process.stdout.write(JSON.stringify({ file: path.relative(corpus, largest), bytes: text.length, units, variants, parseMs, planMs, fixture, demo }));
})();
