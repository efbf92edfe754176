import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { SwarmRuntime } from '../../src/runner/swarmRuntime';
import { Runner, type RunEvents } from '../../src/runner/execute';
import { HostQueue } from '../../src/runner/hostQueue';
import { planRun } from '../../src/core/run/plan';
import type { HostConfig } from '../../src/core/run/hosts';
import { newRunId } from '../../src/runner/runRecord';
import type { RunRecord } from '../../src/core/run/records';
import { scan } from '../../src/core/ingest';
import { nodeFileSource } from '../../src/platform/nodeFileSource';

/** The run label (runner/execute.ts) and a GPU slot holder's (runner/swarmRuntime.ts). */
export const RUN_LABEL = 'bench-triage.run-id';
export const SLOT_LABEL = 'bench-triage.slot';
/** Made in a run's container by its command once it holds its slot's GPUs (slotScripts.ts HELD). */
const HELD = '/.bench-triage-gpu';
/** Made in a run's container by its first process once no other process of it is left and its GPUs went back to the slot (slotScripts.ts FREED). */
const FREED = '/.bench-triage-freed';

/**
 * An engine's run containers that are up: those holding their GPUs (the marker is there) and those
 * placed but waiting for them (the run before them on their slot still runs). A container's marker
 * is asked of the engine (a HEAD of the path), never of the runner.
 */
export async function runContainers(d: Docker): Promise<{ holding: number; waiting: number; waitingIds: string[] }> {
  const up = await d.listContainers({ filters: JSON.stringify({ label: [RUN_LABEL], status: ['running'] }) }).catch(() => []);
  let holding = 0;
  const has = (id: string, file: string) =>
    d
      .getContainer(id)
      .infoArchive({ path: file })
      .then(
        () => true,
        () => false,
      );
  const waitingIds: string[] = [];
  for (const c of up)
    if (!(await has(c.Id, HELD))) waitingIds.push(c.Id);
    else if (!(await has(c.Id, FREED))) holding++;
  return { holding, waiting: waitingIds.length, waitingIds };
}

/** Services and containers (any state) of runs and of GPU slot holders on an engine. */
export async function labelled(d: Docker, what: 'services' | 'containers'): Promise<number> {
  let n = 0;
  for (const label of [RUN_LABEL, SLOT_LABEL])
    n +=
      what === 'services'
        ? (await d.listServices({ filters: JSON.stringify({ label: [label] }) })).length
        : (await d.listContainers({ all: true, filters: JSON.stringify({ label: [label] }) }).catch(() => [])).length;
  return n;
}

/** Secrets that carried runs' files into their containers (runner/swarmRuntime.ts's label), on the manager. */
export async function fileSecrets(d: Docker): Promise<number> {
  return (await d.listSecrets({ filters: JSON.stringify({ label: ['bench-triage.files-of'] }) })).length;
}

/** A marker's modification time, from the engine's stat of the path (null: not yet): when the run took its GPUs (HELD) or gave them back (FREED). */
async function markedAt(d: Docker, id: string, file: string): Promise<number | null> {
  const res = (await d
    .getContainer(id)
    .infoArchive({ path: file })
    .catch(() => null)) as { headers?: Record<string, string>; resume?: () => void } | null;
  res?.resume?.();
  const stat = res?.headers?.['x-docker-container-path-stat'];
  if (!stat) return null;
  const mtime = (JSON.parse(Buffer.from(stat, 'base64').toString('utf8')) as { mtime?: string }).mtime;
  return mtime ? Date.parse(mtime) : null;
}

/**
 * Runs holding GPUs at once on each engine, exactly: each run container is found while it is up
 * (every 100 ms) with the time its command took its slot's GPUs (the marker's mtime), and the
 * time it gave them back (its first process's marker once no other process of it was left) or
 * else its death (the engine's own `die` event). The most overlapping [took, gave back) spans per
 * engine is the answer, whatever the sampling saw at any one moment (a run's container dying as
 * the next takes its GPUs is one run, not two).
 */
export function watchGpuHolders(engines: Array<{ name: string; docker: Docker }>) {
  const spans = new Map<string, { node: string; service: string; from: number; freed: number | null; gpus: string }>();
  /** Per engine: the GPUs the swarm gave each slot holder seen there (its container's DOCKER_RESOURCE_NVIDIA-GPU). */
  const holderGpus = new Map<string, Set<string>>();
  const gpusOf = async (d: Docker, id: string) =>
    (
      (
        await d
          .getContainer(id)
          .inspect()
          .catch(() => null)
      )?.Config?.Env ?? []
    )
      .find(e => e.startsWith('DOCKER_RESOURCE_NVIDIA-GPU='))
      ?.split('=')[1] ?? '';
  const died = new Map<string, number>();
  /** When each run container was made (its engine's `create` event). */
  const made = new Map<string, number>();
  /** Archives the engine extracted into each run container (files put after it was made). */
  const extracted = new Map<string, number>();
  /** The phases the runner launched by an exec in a run container (the helper's `launch <phase>`). */
  const launchedByExec: string[] = [];
  let stopped = false;
  const streams: Array<{ destroy(): void }> = [];
  for (const e of engines)
    void (e.docker.getEvents as (o: object) => Promise<unknown>)
      .call(e.docker, { filters: JSON.stringify({ type: ['container'], event: ['create', 'die', 'exec_start', 'extract-to-dir'], label: [RUN_LABEL] }) })
      .then(st => {
        const s = st as unknown as NodeJS.ReadableStream & { destroy(): void };
        if (stopped) return s.destroy();
        streams.push(s);
        let rest = '';
        s.on('data', (b: Buffer) => {
          const lines = (rest + b.toString('utf8')).split('\n');
          rest = lines.pop() ?? '';
          for (const l of lines)
            if (l.trim()) {
              const ev = JSON.parse(l) as { id?: string; Action?: string; timeNano?: number };
              const launch = /^exec_start: python3 \S+ launch (\S+) /.exec(ev.Action ?? '');
              if (launch) launchedByExec.push(launch[1]);
              else if (ev.id && ev.timeNano && ev.Action === 'die') died.set(ev.id, ev.timeNano / 1e6);
              else if (ev.id && ev.timeNano && ev.Action === 'create') made.set(ev.id, ev.timeNano / 1e6);
              else if (ev.id && ev.Action === 'extract-to-dir') extracted.set(ev.id, (extracted.get(ev.id) ?? 0) + 1);
            }
        });
        s.on('error', () => {});
      })
      .catch(() => {});
  const loop = (async () => {
    while (!stopped) {
      for (const e of engines) {
        const up = await e.docker.listContainers({ filters: JSON.stringify({ label: [RUN_LABEL], status: ['running'] }) }).catch(() => []);
        for (const c of up) {
          const span = spans.get(c.Id);
          // Its GPUs handed to the slot's next run before the container dies: the marker's time ends the span.
          if (span) {
            if (span.freed === null) span.freed = await markedAt(e.docker, c.Id, FREED);
            continue;
          }
          const from = await markedAt(e.docker, c.Id, HELD);
          if (from !== null)
            spans.set(c.Id, {
              node: e.name,
              service: c.Labels?.['com.docker.swarm.service.id'] ?? '',
              from,
              freed: await markedAt(e.docker, c.Id, FREED),
              gpus: await gpusOf(e.docker, c.Id),
            });
        }
        const holders = await e.docker.listContainers({ filters: JSON.stringify({ label: [SLOT_LABEL], status: ['running'] }) }).catch(() => []);
        for (const h of holders) {
          const set = holderGpus.get(e.name) ?? new Set<string>();
          holderGpus.set(e.name, set.add(await gpusOf(e.docker, h.Id)));
        }
      }
      await new Promise(r => setTimeout(r, 100));
    }
  })();
  return {
    /** Each run container's span, for a failing assertion's message. */
    spans(): string {
      return JSON.stringify([...spans].map(([id, s]) => [s.node, id.slice(0, 12), s.gpus, s.from, s.freed, died.get(id) ?? null]));
    },
    /**
     * After stop: each run that followed another on the same GPUs of a node, with the time its
     * predecessor took them and gave them back (its markers), its own container's making and
     * taking of them, and its predecessor's death.
     */
    handOvers(): Array<{ id: string; heldBefore: number; freed: number; made: number | null; took: number; died: number | null }> {
      const all = [...spans].map(([id, s]) => ({ id, ...s }));
      return all.flatMap(r => {
        const before = all.filter(o => o !== r && o.node === r.node && o.gpus === r.gpus && o.freed !== null && o.freed <= r.from);
        const last = before.sort((a, b) => b.freed! - a.freed!)[0];
        return last
          ? [{ id: r.id.slice(0, 12), heldBefore: last.from, freed: last.freed!, made: made.get(r.id) ?? null, took: r.from, died: died.get(last.id) ?? null }]
          : [];
      });
    },
    /** After stop: how many runs each GPU of each node served (`node GPUs` → runs). */
    runsPerGpu(): Record<string, number> {
      const out: Record<string, number> = {};
      for (const s of spans.values()) out[`${s.node} ${s.gpus}`] = (out[`${s.node} ${s.gpus}`] ?? 0) + 1;
      return out;
    },
    /** After stop: the run containers files were put into, and how many archives each. */
    extractions(): Record<string, number> {
      return Object.fromEntries([...extracted].map(([id, n]) => [id.slice(0, 12), n]));
    },
    /** After stop: each phase name the runner launched by an exec, once per launch. */
    execLaunches(): string[] {
      return [...launchedByExec];
    },
    /**
     * After stop: runs whose GPUs (DOCKER_RESOURCE_NVIDIA-GPU) are not those of a holder seen on
     * their node, or that held the same GPU as another run at the same time on one node.
     */
    gpuProblems(): string[] {
      const out: string[] = [];
      const all = [...spans].map(([id, s]) => ({ id, ...s, to: s.freed ?? died.get(id) ?? Infinity }));
      for (const r of all) {
        if (!r.gpus || !holderGpus.get(r.node)?.has(r.gpus)) out.push(`${r.id.slice(0, 12)} on ${r.node}: GPUs '${r.gpus}' are no holder's there`);
        for (const o of all)
          if (o.id < r.id && o.node === r.node && o.gpus === r.gpus && o.from < r.to && r.from < o.to)
            out.push(`${r.id.slice(0, 12)} and ${o.id.slice(0, 12)} held ${r.gpus} at once on ${r.node}`);
      }
      return out;
    },
    /**
     * Stops watching. `freedAt`, by service (a run's record: its container id, and when its GPUs went
     * back, as its container wrote it), stands in for a marker the sampling missed: a container
     * removed less than a sampling round after it gave its GPUs back.
     */
    async stop(freedAt: (service: string) => number | null = () => null): Promise<Map<string, number>> {
      stopped = true;
      await loop;
      // Deaths still on their way from the engines.
      await new Promise(r => setTimeout(r, 300));
      for (const s of streams) s.destroy();
      for (const s of spans.values()) if (s.freed === null) s.freed = freedAt(s.service);
      const most = new Map(engines.map(e => [e.name, 0]));
      const edges: Array<[string, number, number]> = [];
      for (const [id, s] of spans) edges.push([s.node, s.from, 1], [s.node, s.freed ?? died.get(id) ?? Infinity, -1]);
      // Ends before starts at the same instant: a span is [took, gave back or died).
      edges.sort((a, b) => a[1] - b[1] || a[2] - b[2]);
      const now = new Map<string, number>();
      for (const [node, , d] of edges) {
        now.set(node, (now.get(node) ?? 0) + d);
        most.set(node, Math.max(most.get(node) ?? 0, now.get(node)!));
      }
      return most;
    },
  };
}

/** From every run record under `folder`: when the run with this service id gave its GPUs back (its container's clock, ms), or null. */
export function freedFromRecords(folder: string): (service: string) => number | null {
  const freed = new Map<string, number>();
  const root = path.join(folder, '.bench-triage/runs');
  if (existsSync(root))
    for (const f of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (path.basename(f) !== 'run.json') continue;
      const r = JSON.parse(readFileSync(path.join(root, f), 'utf8')) as { containerId?: string; slotGpus?: { freedAt: string | null } | null };
      if (r.containerId && r.slotGpus?.freedAt) freed.set(r.containerId, Date.parse(r.slotGpus.freedAt));
    }
  return service => freed.get(service) ?? null;
}

/**
 * Runs of the human role driven in-process on a swarm host (each with its own environment), and
 * a wait until one holds its GPUs (its node then): for tests that need runs of unequal length, in
 * an order they choose.
 */
export function inProcessRuns(
  h: HostConfig,
  fx: { folder: string; checkout: string; human: string },
  image: string,
): {
  run: (env: Record<string, string>, signal?: AbortSignal) => { runId: string; done: Promise<RunRecord> };
  holding: (runId: string) => Promise<string>;
  /** The runs' runtime (its manager's client, to slow an answer of it). */
  runtime: SwarmRuntime;
} {
  const state = new Map<string, RunRecord>();
  const events: RunEvents = { state: rec => void state.set(rec.runId, rec) };
  const runtime = new SwarmRuntime(h);
  const runner = new Runner(runtime, new HostQueue(h.gpus, 3 * h.gpus), events);
  const commit = scan(nodeFileSource(fx.folder)).then(r => r.commits.find(c => c.hash === fx.human)!);
  return {
    run: (env, signal) => {
      const runId = newRunId();
      const done = commit.then(c =>
        runner.run({
          plan: planRun(c, 'human', { host: h, runId, templates: { human: image, baseline: image }, serverTimeoutS: 30 }),
          folder: fx.folder,
          checkout: fx.checkout,
          env,
          signal,
        }),
      );
      return { runId, done };
    },
    holding: async runId => {
      for (let i = 0; i < 600; i++) {
        const r = state.get(runId);
        if (r?.slotGpus?.heldAt && r.node) return r.node;
        if (r?.endedAt) throw new Error(`${runId} ended before it held its GPUs: ${r.status} ${r.error}`);
        await new Promise(res => setTimeout(res, 100));
      }
      throw new Error(`${runId} never held its GPUs`);
    },
    runtime,
  };
}

/** `campaign start` of the fixture's commit, its roles but the agent's (or `roles`), `repeats` times each, on `host` (its options) with `gpus` GPUs. */
export function campaignStartArgs(o: { folder: string; commit: string; id: string; host: string[]; gpus: number; repeats?: number; roles?: string }): string[] {
  return [
    'campaign',
    'start',
    '--folder',
    o.folder,
    '--select',
    `commit=${o.commit.slice(0, 10)},${o.roles ?? 'role!=agent'}`,
    ...(o.repeats ? ['--repeats', String(o.repeats)] : []),
    '--id',
    o.id,
    ...o.host,
    '--gpus',
    String(o.gpus),
  ];
}
