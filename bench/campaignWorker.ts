// A campaign of short runs through the durable queue on one host with 2 GPU slots, each run a
// timed sleep standing in for a container (the queue's own cost is what is measured: its record
// writes, claims and picking). Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CampaignQueue, type CampaignExecutor } from '../src/app/campaigns';
import type { CampaignItem } from '../src/core/campaign/plan';

const N = Number(process.argv[2] ?? 30);
const RUN_MS = Number(process.argv[3] ?? 200);
const GPUS = 2;

async function main() {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'bt-bench-campaign-'));
  try {
    const items: CampaignItem[] = Array.from({ length: N }, (_, i) => ({
      n: i + 1,
      commit: `c${i}`,
      agent: null,
      role: 'baseline',
      repeat: 1,
      estimateS: RUN_MS / 1000,
      gpus: 1,
    }));
    const q = await CampaignQueue.create(folder, { items, refusals: [], gpuHours: 0 }, { select: 'bench', repeats: 1, hosts: ['h'] });
    // GPU busy intervals, to find idle time while runs were still queued.
    let busy = 0;
    let idleWhileQueuedMs = 0;
    // Idle before every slot had its first run (reading the campaign, the first claims) apart
    // from idle between runs (what the queue's own work between a run's end and the next start costs).
    let idleAtStartMs = 0;
    let lastChange = performance.now();
    let started = 0;
    const mark = () => {
      const now = performance.now();
      if (busy < GPUS && started < N) {
        const idle = (GPUS - busy) * (now - lastChange);
        if (started < GPUS) idleAtStartMs += Math.min(idle, (GPUS - started) * (now - lastChange));
        idleWhileQueuedMs += idle;
      }
      lastChange = now;
    };
    const exec: CampaignExecutor = {
      prepare: async item => ({ runId: `r${item.n}`, resultDir: `runs/r${item.n}` }),
      start: async () => {
        mark();
        busy++;
        started++;
        await new Promise(r => setTimeout(r, RUN_MS));
        mark();
        busy--;
        return { status: 'succeeded', error: null };
      },
      recorded: async () => null,
      reattach: async () => {},
    };
    const t0 = performance.now();
    lastChange = t0;
    const s = await q.run(exec, [{ label: 'h', slots: GPUS, gpus: GPUS }], new AbortController().signal);
    const wallMs = performance.now() - t0;
    const idealMs = (N * RUN_MS) / GPUS;
    console.log(
      JSON.stringify({
        n: N,
        runMs: RUN_MS,
        gpus: GPUS,
        done: s.done,
        wallMs,
        idealMs,
        overheadPerRunMs: ((wallMs - idealMs) * GPUS) / N,
        idleWhileQueuedMs,
        idleAtStartMs,
        idleBetweenRunsMs: idleWhileQueuedMs - idleAtStartMs,
      }),
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
void main();
