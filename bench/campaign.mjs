#!/usr/bin/env node
// bench/campaign: 30 short runs on 2 GPU slots through the durable campaign queue. Wall time
// against the ideal (sum of durations ÷ GPUs), the queue's overhead per run, and GPU idle time
// while runs were queued (target 0). The runs are timed sleeps: the queue is what is measured.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export function benchCampaign({ n = 30, runMs = 200 } = {}) {
  const line = execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/campaignWorker.js'), String(n), String(runMs)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  return JSON.parse(line);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchCampaign();
  console.log(
    `campaign of ${r.n} runs × ${r.runMs} ms on ${r.gpus} GPUs: ${r.wallMs.toFixed(0)} ms vs ideal ${r.idealMs.toFixed(0)} ms (${(r.wallMs / r.idealMs).toFixed(3)}×); queue overhead ${r.overheadPerRunMs.toFixed(1)} ms per run; GPU idle while runs were queued ${r.idleWhileQueuedMs.toFixed(1)} GPU·ms (${r.idleAtStartMs.toFixed(1)} before every slot had its first run, ${r.idleBetweenRunsMs.toFixed(1)} between runs)`,
  );
}
