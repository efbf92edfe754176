#!/usr/bin/env node
// bench/swarm: on the test suite's three-node swarm (real dockerds, 2 fake GPUs per worker), the
// per-run overhead of a swarm run on a worker against a plain-host run of the same fake container
// on that worker's engine (target ≤ 1.2×), and GPU idle while campaign runs waited (target 0).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export function benchSwarm() {
  const line = execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/swarmWorker.js')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .pop();
  return JSON.parse(line);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchSwarm();
  console.log('bench/swarm  (manager + 2 workers, each a dockerd in its own namespace; fake vLLM; medians of 3)');
  console.log(
    `  ~10 s benchmark: plain host ${r.plainMs.toFixed(0).padStart(6)} ms, swarm run on a worker ${r.swarmMs.toFixed(0).padStart(6)} ms  (${r.ratio.toFixed(2)}×, target ≤ 1.2×)`,
  );
  console.log(
    `  0.3 s benchmark: plain host ${r.shortPlainMs.toFixed(0).padStart(6)} ms, swarm run on a worker ${r.shortSwarmMs.toFixed(0).padStart(6)} ms  (fixed cost ${(r.shortSwarmMs - r.shortPlainMs).toFixed(0)} ms)`,
  );
  console.log(
    `  campaign of ${r.runs} runs on 4 GPUs: GPU idle while runs waited (target 0), sampled every 50 ms with a GPU busy from assignment: ${r.idleGpuMs.toFixed(0)} GPU·ms, longest hand-off ${r.worstHandOffMs.toFixed(0)} ms`,
  );
  const e = r.byEvents;
  console.log(
    `  the same from the engines' events, a GPU busy from the ready marker to the container's death: ${e.idleGpuMs.toFixed(0)} GPU·ms, longest hand-off ${e.worstHandOffMs.toFixed(0)} ms; medians: death → next start ${e.dieToStartMs.toFixed(0)} ms, start → ready ${e.startToReadyMs.toFixed(0)} ms, container created → first file put ${e.createToFirstFileMs.toFixed(0)} ms, first file → ready marker ${e.firstFileToReadyMs.toFixed(0)} ms (${e.runsSeen} runs seen)`,
  );
}
