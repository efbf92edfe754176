// bench/swarm worker, on the test suite's three-node swarm (a manager and two workers, 2 fake GPUs
// each, every node a dockerd of its own in its own network namespace):
//   1. the same latency benchmark run on a worker's engine as a plain host, and as a swarm run the
//      manager places on a worker: the swarm's per-run overhead as a ratio (target ≤ 1.2×);
//   2. a campaign of 12 single-GPU runs through the CLI, from the engines' own events and the runs'
//      records: GPU·ms left idle while runs were waiting (target 0), and the hand-offs from a run's
//      end to the next run's start on that node (two measures: see idleFromEvents);
//   3. a campaign's tail with runs of unequal length (tailIdle): the same idle, and the runs that
//      moved to a slot that freed first.
// Prints one JSON line. BENCH_SWARM_DUMP=FILE writes the engines' events of the campaign and the runs' times there;
// BENCH_ITERS and BENCH_SWARM_REPEATS shorten the overhead part; BENCH_SWARM_TOKEN_MS lengthens the campaign's runs;
// BENCH_SWARM_SLOW_TOKEN_MS the tail's slow run (default 200 ms a token).
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scan } from '../src/core/ingest';
import { nodeFileSource } from '../src/platform/nodeFileSource';
import { planRun } from '../src/core/run/plan';
import type { HostConfig } from '../src/core/run/hosts';
import { Runner } from '../src/runner/execute';
import { HostQueue } from '../src/runner/hostQueue';
import { runtimeFor } from '../src/app/runs';
import { newRunId } from '../src/runner/runRecord';
import { makeRunFixture } from '../test/support/runFixture';
import { repoRoot } from '../test/support/repo';
import { copyImage, startCluster, type Cluster } from '../test/docker/swarmCluster';
import { campaignStartArgs } from '../test/docker/swarmRuns';

const IMAGE = 'bench-triage/fake-vllm:test';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function overhead(cluster: Cluster, iters: number, n: number) {
  const tls = cluster.certs;
  const w = cluster.workers[0];
  const plain: HostConfig = { label: `${w.name} (plain)`, docker: w.tcp, gpus: 0, tls };
  const swarm: HostConfig = { kind: 'swarm', label: 'swarm', docker: cluster.manager.tcp, gpus: 4, tls };
  const args = [
    '--model',
    'facebook/opt-125m',
    '--input-len',
    '32',
    '--output-len',
    '128',
    '--batch-size',
    '8',
    '--num-iters-warmup',
    '2',
    '--num-iters',
    String(iters),
  ];
  const fx = makeRunFixture(`python benchmarks/benchmark_latency.py ${args.join(' ')}`);
  const commit = (await scan(nodeFileSource(fx.folder))).commits.find(c => c.hash === fx.human)!;
  const once = async (host: HostConfig) => {
    const plan = planRun(commit, 'human', { host, runId: newRunId(), templates: { human: IMAGE, baseline: IMAGE } });
    const t0 = performance.now();
    const r = await new Runner(runtimeFor(host), new HostQueue(host.gpus)).run({ plan, folder: fx.folder, checkout: fx.checkout, env: {}, minFreeBytes: 1 });
    if (r.status !== 'succeeded') throw new Error(`bench run on ${host.label} ${r.status}: ${r.error}`);
    return performance.now() - t0;
  };
  await once(plain);
  await once(swarm);
  const p: number[] = [],
    s: number[] = [];
  for (let i = 0; i < n; i++) {
    p.push(await once(plain));
    s.push(await once(swarm));
  }
  return { plainMs: median(p), swarmMs: median(s), fx };
}

/**
 * The reference for a campaign's start: four runs asked at once of the two workers' engines as
 * plain hosts (two each, as the campaign's first runs land), no swarm. The same sum as the
 * campaign's start-up idle: each run's first phase after the first run's, in GPU·ms. What Docker
 * itself costs here to start four containers together; medians of `n`.
 */
async function plainStart(cluster: Cluster, fx: ReturnType<typeof makeRunFixture>, n: number) {
  const commit = (await scan(nodeFileSource(fx.folder))).commits.find(c => c.hash === fx.human)!;
  const hosts: HostConfig[] = cluster.workers.map(w => ({ label: `${w.name} (plain)`, docker: w.tcp, gpus: 0, tls: cluster.certs }));
  const idle: number[] = [];
  const firstAfter: number[] = [];
  for (let k = 0; k < n; k++) {
    const asked = Date.now();
    const records = await Promise.all(
      [0, 1, 2, 3].map(async i => {
        const host = hosts[i % 2];
        const plan = planRun(commit, 'human', { host, runId: newRunId(), templates: { human: IMAGE, baseline: IMAGE } });
        const r = await new Runner(runtimeFor(host), new HostQueue(host.gpus)).run({
          plan,
          folder: fx.folder,
          checkout: fx.checkout,
          env: {},
          minFreeBytes: 1,
        });
        if (r.status !== 'succeeded') throw new Error(`plain run on ${host.label} ${r.status}: ${r.error}`);
        return r;
      }),
    );
    const t = records.map(r => Math.min(...r.phases.map(p => (p.launchedAt ? Date.parse(p.launchedAt) : Infinity))));
    const first = Math.min(...t);
    idle.push(t.reduce((sum, x) => sum + (x - first), 0));
    firstAfter.push(first - asked);
  }
  return { startIdleGpuMs: median(idle), startIdleRange: [Math.min(...idle), Math.max(...idle)], firstPhaseAfterMs: median(firstAfter) };
}

type Event = { Type?: string; Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> }; timeNano?: number };

/** Events an engine pushes (no polling: the manager's load is not changed by watching), kept until `stop`. */
async function collectEvents(docker: Cluster['manager']['docker'], filters: Record<string, string[]>): Promise<{ events: Event[]; stop: () => void }> {
  const events: Event[] = [];
  const stream = (await docker.getEvents({ filters: JSON.stringify(filters) } as never)) as unknown as NodeJS.ReadableStream & { destroy(): void };
  let rest = '';
  stream.on('data', (d: Buffer) => {
    const lines = (rest + d.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (l.trim()) events.push(JSON.parse(l) as Event);
  });
  stream.on('error', () => {});
  return { events, stop: () => stream.destroy() };
}

/** A run's GPU span as its record has it: the runner's launch of the first phase, and, on a slot, the container's own clock. */
interface RecordTimes {
  launched: number;
  held?: number;
  freed?: number;
}

/**
 * GPU idle from the engines' own events and the runs' records, after the fact. A run waits from
 * its service's creation (the manager's event; GPU slot holders' services are not runs) until it
 * holds its GPU, and holds it until it gives it back. Two measures of that span:
 * - `runner` (the measure of the earlier sessions): from its first phase as its record says
 *   (`launchedAt`: the runner's time once it knew, after the phase began) to its container's death
 *   (the node's event), so the runner's steps after the benchmark count as busy;
 * - `container`: from the moment its container took the GPUs to the moment no process of it was
 *   left (both written by the container itself, the node's clock), falling back to the first where
 *   the record lacks them.
 * All on one clock here. Placement, container start-up, files, the wait for the run before it on
 * its slot and the runner's own steps up to the first phase count as idle. A hand-off is a run's
 * start after the end of the run before it on the same node while it waited.
 */
function idleFromEvents(
  created: Event[],
  nodeEvents: Array<Event & { node: string }>,
  gpus: number,
  times: Map<string, RecordTimes>,
  measure: 'runner' | 'container',
) {
  const ms = (e: Event) => (e.timeNano ?? 0) / 1e6;
  const runs = new Map<string, { created: number; node?: string; started?: number; launched?: number; died?: number }>();
  for (const e of created) if (e.Actor?.ID && !(e.Actor.Attributes?.name ?? '').startsWith('bench-triage-slot-')) runs.set(e.Actor.ID, { created: ms(e) });
  for (const e of nodeEvents) {
    const svc = e.Actor?.Attributes?.['com.docker.swarm.service.id'];
    const r = svc ? runs.get(svc) : undefined;
    if (!r) continue;
    r.node = e.node;
    const action = e.Action ?? '';
    if (action === 'die') r.died = ms(e);
    if (action === 'start') r.started = ms(e);
  }
  let handedOver = 0;
  for (const [svc, t] of times) {
    const r = runs.get(svc);
    if (!r) continue;
    r.launched = measure === 'container' ? (t.held ?? t.launched) : t.launched;
    if (t.freed !== undefined) handedOver++;
    if (measure === 'container' && t.freed !== undefined) r.died = t.freed;
  }
  const done = [...runs.values()].filter(r => r.launched !== undefined && r.died !== undefined) as Array<{
    created: number;
    node: string;
    started?: number;
    launched: number;
    died: number;
  }>;
  // +1 waiting at creation; waiting → busy as it holds its GPU; busy ends as it gives it back.
  const steps: Array<[number, number, number]> = [];
  for (const r of done) steps.push([r.created, 1, 0], [r.launched, -1, 1], [r.died, 0, -1]);
  // At one instant a give-back comes before the take it allows.
  steps.sort((a, b) => a[0] - b[0] || a[2] - b[2]);
  let waiting = 0,
    busy = 0,
    idle = 0,
    idleBeforeAll = 0,
    all = false,
    started = false,
    last = 0;
  for (const [t, dw, db] of steps) {
    const lost = started ? Math.max(0, Math.min(gpus - busy, waiting)) * (t - last) : 0;
    idle += lost;
    // Until every GPU has had a run: the campaign's start-up (holders and first runs placed).
    if (!all) idleBeforeAll += lost;
    waiting += dw;
    busy += db;
    if (db > 0) started = true;
    if (busy >= gpus) all = true;
    last = t;
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const handOffs = done.flatMap(r => {
    const before = done.filter(o => o !== r && o.node === r.node && o.died <= r.launched && o.died > r.created).map(o => o.died);
    return before.length ? [r.launched - Math.max(...before)] : [];
  });
  return {
    runsSeen: done.length,
    // From the campaign's first service to its first run's GPU: how soon a campaign starts.
    firstAfterMs: done.length ? Math.round(Math.min(...done.map(r => r.launched)) - Math.min(...done.map(r => r.created))) : 0,
    handedOver,
    idleGpuMs: Math.round(idle),
    idleBeforeAllGpuMs: Math.round(idleBeforeAll),
    idleBetweenGpuMs: Math.round(idle - idleBeforeAll),
    handOffs: handOffs.length,
    handOffMedianMs: Math.round(med(handOffs) * 10) / 10,
    worstHandOffMs: handOffs.length ? Math.round(Math.max(...handOffs) * 10) / 10 : 0,
    // How early a run was ready on its node: its container's start before the end it waited for.
    startedAheadMs: med(
      done.flatMap(r => {
        const before = done.filter(o => o !== r && o.node === r.node && o.died <= r.launched && o.died > r.created).map(o => o.died);
        return before.length && r.started !== undefined ? [Math.max(...before) - r.started] : [];
      }),
    ),
  };
}

/** Each run's service id (its record's container id) → its GPU span's times, from every run record under `folder`. */
function recordTimes(folder: string): Map<string, RecordTimes> {
  const out = new Map<string, RecordTimes>();
  for (const f of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    if (path.basename(f) !== 'run.json') continue;
    const r = JSON.parse(readFileSync(path.join(folder, f), 'utf8')) as {
      containerId?: string;
      phases?: Array<{ launchedAt?: string | null }>;
      slotGpus?: { heldAt: string; freedAt: string | null } | null;
    };
    const t = (r.phases ?? []).map(p => (p.launchedAt ? Date.parse(p.launchedAt) : NaN)).filter(Number.isFinite);
    if (!r.containerId || !t.length) continue;
    const at: RecordTimes = { launched: Math.min(...t) };
    if (r.slotGpus?.heldAt) at.held = Date.parse(r.slotGpus.heldAt);
    if (r.slotGpus?.freedAt) at.freed = Date.parse(r.slotGpus.freedAt);
    out.set(r.containerId, at);
  }
  return out;
}

/** The campaign through the CLI, the manager's service creations and each worker's container events recorded. */
async function campaignIdle(cluster: Cluster, runs: number, fx: ReturnType<typeof makeRunFixture>) {
  const id = 'bench-swarm';
  const cli = path.join(repoRoot(), 'dist/cli.js');
  const gpus = 4;
  const created = await collectEvents(cluster.manager.docker, { type: ['service'], event: ['create'] });
  const onNodes = await Promise.all(cluster.workers.map(w => collectEvents(w.docker, { type: ['container'] })));
  const proc = spawn(
    process.execPath,
    [
      cli,
      ...campaignStartArgs({
        folder: fx.folder,
        commit: fx.human,
        id,
        host: ['--host', `swarm+${cluster.manager.tcp}`, '--tls-ca', cluster.certs.ca, '--tls-cert', cluster.certs.cert, '--tls-key', cluster.certs.key],
        gpus,
        repeats: runs / 2,
      }),
      '--checkout',
      fx.checkout,
      '--image-human',
      IMAGE,
      '--image-baseline',
      IMAGE,
      // Longer runs (each fake token this many ms): how idle goes when runs outlast a container's start.
      ...(process.env.BENCH_SWARM_TOKEN_MS ? ['--env', `FAKE_VLLM_TOKEN_MS=${Number(process.env.BENCH_SWARM_TOKEN_MS)}`] : []),
    ],
    { env: { ...process.env, DOCKER_HOST: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr!.on('data', d => (stderr += d));
  const code = await new Promise<number | null>(r => proc.on('exit', r));
  if (code !== 0) throw new Error(`campaign exited ${code}: ${stderr.slice(-2000)}`);
  await new Promise(r => setTimeout(r, 1000));
  created.stop();
  for (const n of onNodes) n.stop();
  const nodeEvents = onNodes.flatMap((n, i) => n.events.map(e => ({ ...e, node: cluster.workers[i].name })));
  const times = recordTimes(fx.folder);
  if (process.env.BENCH_SWARM_DUMP)
    writeFileSync(
      process.env.BENCH_SWARM_DUMP,
      JSON.stringify({
        created: created.events,
        nodes: onNodes.map((n, i) => ({ node: cluster.workers[i].name, events: n.events })),
        records: Object.fromEntries(times),
      }),
    );
  return {
    runs,
    byEvents: idleFromEvents(created.events, nodeEvents, gpus, times, 'runner'),
    byContainers: idleFromEvents(created.events, nodeEvents, gpus, times, 'container'),
  };
}

/**
 * A campaign's tail with runs of unequal length: a slow run (each fake token `slowTokenMs`) on its
 * GPU, then 7 quick runs asked at once of the 4 GPUs. Four of them wait on a slot, one behind the
 * slow run; the quick slots run out of work long before it ends. GPU idle while
 * runs waited, by the containers' clocks, and what each run that moved to a freed slot had left
 * to wait there (the slow run's end after the moment it took its GPUs elsewhere).
 */
async function tailIdle(cluster: Cluster, fx: ReturnType<typeof makeRunFixture>, slowTokenMs: number) {
  const host: HostConfig = { kind: 'swarm', label: 'swarm', docker: cluster.manager.tcp, gpus: 4, tls: cluster.certs };
  const commit = (await scan(nodeFileSource(fx.folder))).commits.find(c => c.hash === fx.human)!;
  const created = await collectEvents(cluster.manager.docker, { type: ['service'], event: ['create'] });
  const onNodes = await Promise.all(cluster.workers.map(w => collectEvents(w.docker, { type: ['container'] })));
  let slowHeld: () => void = () => undefined;
  const held = new Promise<void>(r => (slowHeld = r));
  const runner = new Runner(runtimeFor(host), new HostQueue(4, 12), { state: rec => void (rec.slotGpus?.heldAt && slowHeld()) });
  const run = (tokenMs: number) => {
    const plan = planRun(commit, 'human', { host, runId: newRunId(), templates: { human: IMAGE, baseline: IMAGE } });
    return runner.run({ plan, folder: fx.folder, checkout: fx.checkout, env: { FAKE_VLLM_TOKEN_MS: String(tokenMs) }, minFreeBytes: 1 });
  };
  // The slow run first, on its GPU before the others are asked for: one of them lines up behind it
  // (the run that began first), as a run would behind the slow one of a real campaign.
  const slow = run(slowTokenMs);
  await Promise.race([held, slow]);
  const records = await Promise.all([slow, ...Array.from({ length: 7 }, () => run(1))]);
  await new Promise(r => setTimeout(r, 1000));
  created.stop();
  for (const n of onNodes) n.stop();
  const bad = records.filter(r => r.status !== 'succeeded');
  if (bad.length) throw new Error(`tail runs ${bad.map(r => `${r.status}: ${r.error}`).join('; ')}`);
  const nodeEvents = onNodes.flatMap((n, i) => n.events.map(e => ({ ...e, node: cluster.workers[i].name })));
  const byContainers = idleFromEvents(created.events, nodeEvents, 4, recordTimes(fx.folder), 'container');
  const slowEnd = Date.parse(records[0].endedAt!);
  const moved = records.filter(r => /moved to a GPU slot/.test(readFileSync(path.join(fx.folder, r.plan.resultDir, 'logs/runner.log'), 'utf8')));
  return {
    slowS: (slowEnd - Date.parse(records[0].startedAt!)) / 1000,
    idleGpuMs: byContainers.idleGpuMs,
    idleBeforeAllGpuMs: byContainers.idleBeforeAllGpuMs,
    idleBetweenGpuMs: byContainers.idleBetweenGpuMs,
    moved: moved.length,
    savedMs: moved.map(r => Math.round(slowEnd - Date.parse(r.slotGpus!.heldAt))),
  };
}

/**
 * Until the swarm has no service and no task left: the overhead runs' slot holders linger a moment
 * after their last run (for a next run of that process), and one still holding a GPU as the
 * campaign starts would count as the campaign's idle.
 */
async function quiet(cluster: Cluster): Promise<void> {
  const d = cluster.manager.docker;
  for (let i = 0; ; i++) {
    const [services, tasks] = await Promise.all([d.listServices(), d.listTasks()]);
    const live = (tasks as Array<{ Status?: { State?: string } }>).filter(
      t => !['complete', 'failed', 'shutdown', 'rejected', 'orphaned'].includes(t.Status?.State ?? ''),
    );
    if (!services.length && !live.length) return;
    if (i >= 600) throw new Error(`the swarm kept ${services.length} services and ${live.length} tasks for 60 s after the overhead runs`);
    await new Promise(r => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const cluster = await startCluster();
  try {
    execFileSync(process.execPath, [path.join(repoRoot(), 'scripts/fake-image.mjs')], {
      env: { ...process.env, DOCKER_HOST: cluster.manager.unix },
      stdio: 'ignore',
    });
    for (const w of cluster.workers) await copyImage(cluster.manager.docker, w.docker, IMAGE);
    const long = await overhead(cluster, Number(process.env.BENCH_ITERS ?? 1500), Number(process.env.BENCH_SWARM_REPEATS ?? 3));
    const short = await overhead(cluster, 10, Number(process.env.BENCH_SWARM_REPEATS ?? 3));
    // The short benchmark's commit has its entry now (a run gave it one): the campaign runs it.
    const plainStartup = await plainStart(cluster, short.fx, Number(process.env.BENCH_SWARM_REPEATS ?? 3));
    await quiet(cluster);
    const c = await campaignIdle(cluster, Number(process.env.BENCH_SWARM_RUNS ?? 12), short.fx);
    await quiet(cluster);
    const tail = await tailIdle(cluster, short.fx, Number(process.env.BENCH_SWARM_SLOW_TOKEN_MS ?? 200));
    for (const f of [long.fx, short.fx]) rmSync(path.dirname(f.folder), { recursive: true, force: true });
    process.stdout.write(
      JSON.stringify({
        plainMs: long.plainMs,
        swarmMs: long.swarmMs,
        ratio: long.swarmMs / long.plainMs,
        shortPlainMs: short.plainMs,
        shortSwarmMs: short.swarmMs,
        plainStartup,
        tail,
        ...c,
      }) + '\n',
    );
  } finally {
    await cluster.stop();
  }
}

main().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
