#!/usr/bin/env node
// bench/swarm: on the test suite's three-node swarm (real dockerds, 2 fake GPUs per worker), the
// per-run overhead of a swarm run on a worker against a plain-host run of the same fake container
// on that worker's engine (target ≤ 1.2×), and GPU idle while campaign runs waited (target 0), also
// in a campaign's tail with runs of unequal length.
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
  const e = r.byEvents;
  console.log(
    `  campaign of ${r.runs} runs on 4 GPUs, from the engines' events and the runs' records (as before: a GPU busy from a run's first phase, as its record has it, to its container's death): GPU idle while runs waited ${e.idleGpuMs.toFixed(0)} GPU·ms (target 0): ${e.idleBeforeAllGpuMs.toFixed(0)} before every GPU had a run, ${e.idleBetweenGpuMs.toFixed(0)} between runs; ${e.handOffs} hand-offs (a death → the next run's first phase on that node): median ${e.handOffMedianMs.toFixed(0)} ms, longest ${e.worstHandOffMs.toFixed(0)} ms; the next run's container started a median ${e.startedAheadMs.toFixed(0)} ms ahead (${e.runsSeen} runs seen)`,
  );
  const ps = r.plainStartup;
  console.log(
    `  reference for a campaign's start: 4 runs asked at once of the two workers' engines as plain hosts, no swarm: their first phases ${ps.startIdleGpuMs.toFixed(0)} GPU·ms after the first's (range ${ps.startIdleRange.map(x => x.toFixed(0)).join('–')}), the first ${ps.firstPhaseAfterMs.toFixed(0)} ms after the ask; the campaign's first run began ${e.firstAfterMs} ms after its first service`,
  );
  const t = r.tail;
  console.log(
    `  a campaign's tail, runs of unequal length: a ${t.slowS.toFixed(1)} s run on its GPU, then 7 short ones asked at once of the 4 GPUs: GPU idle while runs waited ${t.idleGpuMs} GPU·ms by the containers' clocks (${t.idleBeforeAllGpuMs} before every GPU had a run, ${t.idleBetweenGpuMs} between runs); ${t.moved} run(s) moved from behind the long run to a slot that freed first, each taking its GPUs ${t.savedMs.join(', ')} ms before the long run ended`,
  );
  const c = r.byContainers;
  console.log(
    `  the same campaign by the containers' own clocks (a GPU busy from the moment a run's container took it to the moment no process of the run was left; ${c.handedOver} of ${c.runsSeen} runs handed their GPUs over): GPU idle while runs waited ${c.idleGpuMs.toFixed(0)} GPU·ms (target 0): ${c.idleBeforeAllGpuMs.toFixed(0)} before every GPU had a run, ${c.idleBetweenGpuMs.toFixed(0)} between runs; ${c.handOffs} hand-offs (GPUs given back → taken on that node): median ${c.handOffMedianMs.toFixed(1)} ms, longest ${c.worstHandOffMs.toFixed(1)} ms (${c.runsSeen} runs seen)`,
  );
}
