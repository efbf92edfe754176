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

type Task = { Spec?: { ContainerSpec?: { Labels?: Record<string, string> } }; Status?: { State?: string }; DesiredState?: string };

/** The campaign through the CLI, with the reservations the manager holds sampled while it runs. */
async function campaignIdle(cluster: Cluster, runs: number, fx: ReturnType<typeof makeRunFixture>) {
  const id = 'bench-swarm';
  const cli = path.join(repoRoot(), 'dist/cli.js');
  const gpus = 4;
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
  return { runs, idleGpuMs: idle, worstHandOffMs: Math.max(worst, gap) };
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
