#!/usr/bin/env node
// bench/cliCache: `bench-triage classify --json --cache DIR` on 5 000 and 10 000 synthetic commits
// (3 result files and 7 folders each), cold (no index: the run that writes it) against warm (the
// same folder again, nothing changed) and warm after one result file changed. Each figure the
// median of 3; the ratio warm / cold is the figure (target ≤ 0.3×).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.join(ROOT, 'dist/cli.js');
const worker = path.join(ROOT, 'dist-bench/workspaceWorker.js');
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const timed = args => {
  const t0 = process.hrtime.bigint();
  execFileSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 256 << 20 });
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

export function benchCliCache(sizes = [5000, 10000], repeat = 3) {
  const out = {};
  for (const n of sizes) {
    const dir = `/tmp/bt-bench-cli-${n}`,
      cache = `/tmp/bt-bench-cli-cache-${n}`;
    execFileSync(process.execPath, [worker, 'synth', dir, String(n)]);
    timed(['classify', dir, '--json']); // page cache warm
    const cold = [],
      warm = [],
      one = [];
    for (let i = 0; i < repeat; i++) {
      rmSync(cache, { recursive: true, force: true });
      cold.push(timed(['classify', dir, '--json', '--cache', cache]));
      warm.push(timed(['classify', dir, '--json', '--cache', cache]));
      // One result changed: only that file is read again.
      const f = path.join(dir, '.bench-triage/runs', createHash('sha1').update('0').digest('hex').slice(0, 8), 'human/r1/result.json');
      const doc = JSON.parse(readFileSync(f, 'utf8'));
      doc.durationS = (doc.durationS ?? 60) + 1;
      writeFileSync(f, JSON.stringify(doc));
      one.push(timed(['classify', dir, '--json', '--cache', cache]));
    }
    out[n] = { coldMs: median(cold), warmMs: median(warm), oneChangedMs: median(one) };
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('bench/cliCache (medians of 3)');
  for (const [n, v] of Object.entries(benchCliCache()))
    console.log(
      `  ${n} commits: classify --cache cold ${v.coldMs.toFixed(0)} ms, warm ${v.warmMs.toFixed(0)} ms (${(v.warmMs / v.coldMs).toFixed(2)}×), one file changed ${v.oneChangedMs.toFixed(0)} ms (${(v.oneChangedMs / v.coldMs).toFixed(2)}×)`,
    );
}
