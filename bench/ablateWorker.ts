// bench/ablateWorker: planning the ablation of the corpus's largest agent patch (split, units, every
// leave-one-out and each-alone variant's patch) against parsing the same patch alone, in one process.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { splitPatch } from '../src/core/patch';
import { partsOf, splitUnits, subsetPatch, unitMode } from '../src/core/ablate/units';
import { planAblation } from '../src/core/ablate/designs';

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
process.stdout.write(JSON.stringify({ file: path.relative(corpus, largest), bytes: text.length, units, variants, parseMs, planMs }));
