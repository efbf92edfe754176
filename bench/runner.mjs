#!/usr/bin/env node
// bench/runner: a latency benchmark run through the runner (preflight, container, helper, phases,
// logs, run.json, result.json, removal) against a bare `docker run --rm` of the same fake image
// doing the same work; then log capture throughput of a 1 GB flood (stdout+stderr, 1 MB lines).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export function benchRunner() {
  return JSON.parse(
    execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/runnerWorker.js')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchRunner();
  console.log('bench/runner  (real dockerd, fake vLLM image; benchmark_latency.py, medians)');
  console.log(
    `  ~10 s benchmark: bare docker run --rm ${r.bareMs.toFixed(0).padStart(6)} ms, runner ${r.runnerMs.toFixed(0).padStart(6)} ms  (${r.ratio.toFixed(2)}×, target ≤ 1.2×)`,
  );
  console.log(
    `  0.3 s benchmark: bare docker run --rm ${r.shortBareMs.toFixed(0).padStart(6)} ms, runner ${r.shortRunnerMs.toFixed(0).padStart(6)} ms  (fixed cost ${(r.shortRunnerMs - r.shortBareMs).toFixed(0)} ms)`,
  );
  console.log(
    `  log capture                 ${r.captureMBs.toFixed(0).padStart(6)} MB/s (${r.captureMB.toFixed(0)} MB in ${r.captureS.toFixed(1)} s, target ≥ 50 MB/s)`,
  );
}
