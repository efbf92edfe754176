// bench/swarm worker, on the test suite's three-node swarm (a manager and two workers, 2 fake GPUs
// each, every node a dockerd of its own in its own network namespace):
//   1. the same latency benchmark run on a worker's engine as a plain host, and as a swarm run the
//      manager places on a worker: the swarm's per-run overhead as a ratio (target ≤ 1.2×);
//   2. a campaign of 12 single-GPU runs through the CLI, the manager's tasks sampled every 50 ms:
//      GPU·ms left idle while runs were waiting (target 0), and the longest hand-off. A run waits
//      until its task holds a GPU; once its task has ended it waits for nothing, though its record
//      is written a little later.
// Prints one JSON line.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

const IMAGE = 'bench-triage/fake-vllm:test';
const LABEL = 'bench-triage.run-id';
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

/**
 * GPU idle from the engines' own events, after the fact: a run waits from its service's creation
 * (the manager's event) until its benchmark may start, which is the last file put into its task's
 * container (the ready marker; the node's `extract-to-dir` event), and holds its GPU until the
 * container dies. Placement, container start-up, the runner noticing the task and putting its
 * files all count as idle here, where the sampled figure counts a GPU busy from assignment.
 */
function idleFromEvents(created: Event[], nodeEvents: Event[], gpus: number) {
  const ms = (e: Event) => (e.timeNano ?? 0) / 1e6;
  const runs = new Map<string, { created?: number; container?: number; started?: number; firstFile?: number; ready?: number; died?: number }>();
  for (const e of created) if (e.Actor?.ID) runs.set(e.Actor.ID, { created: ms(e) });
  for (const e of nodeEvents) {
    const svc = e.Actor?.Attributes?.['com.docker.swarm.service.id'];
    const r = svc ? runs.get(svc) : undefined;
    if (!r) continue;
    if (e.Action === 'extract-to-dir' && (r.died === undefined || ms(e) < r.died)) r.ready = Math.max(r.ready ?? 0, ms(e));
    if (e.Action === 'die') r.died = ms(e);
    if (e.Action === 'start') r.started = ms(e);
    if (e.Action === 'create') r.container = ms(e);
    if (e.Action === 'extract-to-dir') r.firstFile = Math.min(r.firstFile ?? Infinity, ms(e));
  }
  const done = [...runs.values()].filter(r => r.created !== undefined && r.ready !== undefined && r.died !== undefined) as Array<{
    created: number;
    ready: number;
    died: number;
  }>;
  // +1 waiting at creation; waiting → busy at ready; busy ends at death.
  const steps: Array<[number, number, number]> = [];
  for (const r of done) steps.push([r.created, 1, 0], [r.ready, -1, 1], [r.died, 0, -1]);
  steps.sort((a, b) => a[0] - b[0]);
  let waiting = 0,
    busy = 0,
    idle = 0,
    started = false,
    last = 0,
    gap = 0,
    worst = 0;
  for (const [t, dw, db] of steps) {
    if (started) {
      const free = Math.min(gpus - busy, waiting);
      if (free > 0) {
        idle += free * (t - last);
        gap += t - last;
      } else {
        worst = Math.max(worst, gap);
        gap = 0;
      }
    }
    waiting += dw;
    busy += db;
    if (db > 0) started = true;
    last = t;
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  // Where a run's wait went once its GPU freed: container start to its files and ready marker.
  const startToReady = med(done.map(r => r.ready - ((r as { started?: number }).started ?? r.ready)));
  // And before it: from the death that freed a GPU to the next container's start (the swarm's
  // scheduling, the node's container create and start), for runs that waited for a GPU.
  const deaths = done.map(r => r.died).sort((a, b) => a - b);
  const dieToStart = med(
    done.flatMap(r => {
      const st = (r as { started?: number }).started;
      const before = deaths.filter(d => st !== undefined && d < st && d > r.created);
      return st !== undefined && before.length ? [st - before[before.length - 1]] : [];
    }),
  );
  // The runner's part, container created → first file put → ready marker put.
  const full = done as Array<{ container?: number; firstFile?: number; ready: number }>;
  const createToFirstFile = med(full.flatMap(r => (r.container !== undefined && r.firstFile !== undefined ? [r.firstFile - r.container] : [])));
  const firstFileToReady = med(full.flatMap(r => (r.firstFile !== undefined ? [r.ready - r.firstFile] : [])));
  return {
    runsSeen: done.length,
    idleGpuMs: idle,
    worstHandOffMs: Math.max(worst, gap),
    dieToStartMs: dieToStart,
    startToReadyMs: startToReady,
    createToFirstFileMs: createToFirstFile,
    firstFileToReadyMs: firstFileToReady,
  };
}

type Task = { Spec?: { ContainerSpec?: { Labels?: Record<string, string> } }; Status?: { State?: string }; DesiredState?: string };

/** The campaign through the CLI, with the reservations the manager holds sampled while it runs. */
async function campaignIdle(cluster: Cluster, runs: number, fx: ReturnType<typeof makeRunFixture>) {
  const id = 'bench-swarm';
  const cli = path.join(repoRoot(), 'dist/cli.js');
  const gpus = 4;
  const created = await collectEvents(cluster.manager.docker, { type: ['service'], event: ['create'] });
  const onNodes = await Promise.all(
    cluster.workers.map(w => collectEvents(w.docker, { type: ['container'], event: ['create', 'extract-to-dir', 'die', 'start'] })),
  );
  const proc = spawn(
    process.execPath,
    [
      cli,
      'campaign',
      'start',
      '--folder',
      fx.folder,
      '--select',
      `commit=${fx.human.slice(0, 10)},role!=agent`,
      '--repeats',
      String(runs / 2),
      '--id',
      id,
      '--host',
      `swarm+${cluster.manager.tcp}`,
      '--tls-ca',
      cluster.certs.ca,
      '--tls-cert',
      cluster.certs.cert,
      '--tls-key',
      cluster.certs.key,
      '--gpus',
      String(gpus),
      '--checkout',
      fx.checkout,
      '--image-human',
      IMAGE,
      '--image-baseline',
      IMAGE,
    ],
    { env: { ...process.env, DOCKER_HOST: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr!.on('data', d => (stderr += d));
  const exited = new Promise<number | null>(r => proc.on('exit', r));
  let done = false;
  void exited.then(() => (done = true));
  const itemsDir = path.join(fx.folder, '.bench-triage/campaigns', id, 'runs');
  // Runs done with their GPU: their record ended, or their task ended while the runner still
  // collects their results and writes the record (that run waits for nothing).
  const finished = new Set<string>();
  const ended = () => {
    if (!existsSync(itemsDir)) return;
    for (const f of readdirSync(itemsDir))
      try {
        const r = JSON.parse(readFileSync(path.join(itemsDir, f), 'utf8')) as { state: string; runId?: string };
        if (!['queued', 'running'].includes(r.state)) finished.add(r.runId ?? `item ${f}`);
      } catch {
        /* being written */
      }
  };
  let idle = 0,
    last = performance.now(),
    gap = 0,
    worst = 0,
    first = false;
  while (!done) {
    const tasks = ((await cluster.manager.docker.listTasks().catch(() => [])) as Task[]).filter(t => t.Spec?.ContainerSpec?.Labels?.[LABEL]);
    // A reservation is held from assignment until the task is stopped (running or on its way
    // there). A job's task wants `complete`, not `running`: only a stop or a removal releases it.
    const held = tasks.filter(
      t =>
        !['shutdown', 'remove'].includes(t.DesiredState ?? '') &&
        ['assigned', 'accepted', 'preparing', 'ready', 'starting', 'running'].includes(t.Status?.State ?? ''),
    ).length;
    for (const t of tasks)
      if (['complete', 'failed', 'rejected', 'shutdown', 'orphaned', 'remove'].includes(t.Status?.State ?? ''))
        finished.add(t.Spec!.ContainerSpec!.Labels![LABEL]);
    ended();
    const waiting = runs - finished.size - held;
    const now = performance.now();
    if (held > 0) first = true;
    // Idle counted once the first run holds its GPU: the campaign's start (planning, the first
    // service) is the start-up, reported by bench/campaign.
    const free = Math.min(gpus - held, Math.max(0, waiting));
    if (first && free > 0) {
      idle += free * (now - last);
      gap += now - last;
    } else {
      worst = Math.max(worst, gap);
      gap = 0;
    }
    last = now;
    await new Promise(r => setTimeout(r, 50));
  }
  const code = await exited;
  if (code !== 0) throw new Error(`campaign exited ${code}: ${stderr.slice(-2000)}`);
  await new Promise(r => setTimeout(r, 1000));
  created.stop();
  for (const n of onNodes) n.stop();
  const byEvents = idleFromEvents(
    created.events,
    onNodes.flatMap(n => n.events),
    gpus,
  );
  return { runs, idleGpuMs: idle, worstHandOffMs: Math.max(worst, gap), byEvents };
}

async function main(): Promise<void> {
  const cluster = await startCluster();
  try {
    execFileSync(process.execPath, [path.join(repoRoot(), 'scripts/fake-image.mjs')], {
      env: { ...process.env, DOCKER_HOST: cluster.manager.unix },
      stdio: 'ignore',
    });
    for (const w of cluster.workers) await copyImage(cluster.manager.docker, w.docker, IMAGE);
    const long = await overhead(cluster, Number(process.env.BENCH_ITERS ?? 1500), 3);
    const short = await overhead(cluster, 10, 3);
    // The short benchmark's commit has its entry now (a run gave it one): the campaign runs it.
    const c = await campaignIdle(cluster, Number(process.env.BENCH_SWARM_RUNS ?? 12), short.fx);
    for (const f of [long.fx, short.fx]) rmSync(path.dirname(f.folder), { recursive: true, force: true });
    process.stdout.write(
      JSON.stringify({
        plainMs: long.plainMs,
        swarmMs: long.swarmMs,
        ratio: long.swarmMs / long.plainMs,
        shortPlainMs: short.plainMs,
        shortSwarmMs: short.swarmMs,
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
