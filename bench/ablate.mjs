#!/usr/bin/env node
// bench/ablate: planning a patch ablation. (1) The corpus's largest agent patch: its units and every
// leave-one-out and each-alone variant's patch, against parsing the patch alone (median of many, one
// process: dist-bench/ablateWorker.js). (2) `ablate plan --json` over the whole corpus against
// `classify --json`, the analysis it starts from (median of N fresh processes each). (3) The runs
// minimise needs against leave-one-out on the Docker fixture and the demo, by their known effects.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CORPUS = path.resolve(ROOT, '../shared/isobench');
const N = Number(process.env.BENCH_REPEAT ?? 5);
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const timed = args => {
  const t = process.hrtime.bigint();
  execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), ...args], { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 256 << 20 });
  return Number(process.hrtime.bigint() - t) / 1e6;
};

export function benchAblate() {
  const one = JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/ablateWorker.js'), CORPUS, '200'], { encoding: 'utf8' }));
  const plan = [],
    classify = [];
  for (let i = 0; i < N; i++) {
    classify.push(timed(['classify', CORPUS, '--json']));
    plan.push(timed(['ablate', 'plan', '--folder', CORPUS, '--json']));
  }
  return { ...one, corpusPlanMs: median(plan), classifyMs: median(classify) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchAblate();
  console.log(
    `largest agent patch (${r.file}, ${(r.bytes / 1024).toFixed(1)} KB, ${r.units} units, ${r.variants} variant patches): plan ${r.planMs.toFixed(2)} ms vs parse ${r.parseMs.toFixed(2)} ms (${(r.planMs / r.parseMs).toFixed(1)}×)`,
  );
  console.log(
    `ablate plan --json, whole corpus: ${r.corpusPlanMs.toFixed(0)} ms vs classify --json ${r.classifyMs.toFixed(0)} ms (${(r.corpusPlanMs / r.classifyMs).toFixed(2)}×)`,
  );
  for (const [name, d] of [
    ['the Docker fixture, 4 repeats', r.fixture],
    ['the demo, 1 repeat', r.demo],
  ])
    console.log(`runs, ${name}: minimise ${d.minimise} vs leave-one-out ${d.leaveOneOut} (minimal subset ${d.subset.join(', ')})`);
}
