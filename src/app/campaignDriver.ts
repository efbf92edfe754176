// One campaign driver for both front ends: the app's Runs and Builds behind the durable queue,
// wired to a front end's targets and settings, started or resumed the same way.
import * as path from 'node:path';
import type { CampaignItem } from '../core/campaign/plan';
import type { BuildRole } from '../core/run/buildPlan';
import { runSlots, type HostConfig } from '../core/run/hosts';
import { runResultDir } from '../core/run/plan';
import { FINAL_BUILD_STATES, FINAL_STATES } from '../core/run/records';
import { readBuildRecord, settledRecord } from '../runner/recordRead';
import { newRunId } from '../runner/runRecord';
import { ownerAlive } from '../platform/processAlive';
import type { CampaignExecutor, CampaignHost, CampaignQueue, CampaignStatus, ItemRecord } from './campaigns';
import type { Runs, RunSettings, RunTarget } from './runs';
import type { BuildOptions, Builds, BuildTarget } from './builds';

export interface RunsExecutorInput {
  runs: Runs;
  folder: string;
  /** The run target of an item (one role), with the run id fixed in advance when given. */
  targetOf: (item: CampaignItem, runId?: string) => Promise<RunTarget>;
  /** A host of the pool by its label (the first when the label is unknown). */
  hostOf: (hostLabel: string) => HostConfig;
  /** Run settings on a host, secrets included: asked only when a run starts there. */
  settingsOf: (host: HostConfig) => Promise<RunSettings>;
  secretValues: (names: string[]) => Record<string, string> | Promise<Record<string, string>>;
}

/**
 * The app's Runs behind a campaign queue: one role per run, its id and folder fixed before it
 * starts. A run is planned once, when it starts, on the host it landed on (its plan depends on
 * that host's GPUs): the queue needs only its id and folder before, so nothing is planned and no
 * secret is read for it.
 */
export function runsExecutor(x: RunsExecutorInput): CampaignExecutor {
  return {
    async prepare(item) {
      await x.targetOf(item); // its commit is still in the folder (else it fails alone, saying why)
      const runId = newRunId();
      return { runId, resultDir: runResultDir(item.commit, item.role, runId) };
    },
    async start(item, prepared, host, signal) {
      const [rec] = await x.runs.start(await x.targetOf(item, prepared.runId), await x.settingsOf(x.hostOf(host)), signal);
      return { status: rec.status, error: rec.error ?? null };
    },
    async recorded(resultDir) {
      const r = await settledRecord(path.join(x.folder, resultDir));
      if (!r) return null;
      const final = FINAL_STATES.includes(r.status);
      return { status: r.status, final, driven: !final && ownerAlive(r.owner), error: r.error };
    },
    async reattach(host, signal) {
      await x.runs.resume(x.folder, x.hostOf(host), x.secretValues, signal);
    },
  };
}

export interface BuildsExecutorInput {
  builds: Builds;
  folder: string;
  target: (item: CampaignItem) => Promise<BuildTarget>;
  hostOf: (hostLabel: string) => HostConfig;
  optionsOf: (host: HostConfig) => Promise<BuildOptions>;
}

/**
 * The app's Builds behind a campaign queue: the build id fixed before it starts. A build cannot be
 * re-attached (the engine ends a build whose client is gone), so a resumed campaign builds an
 * interrupted image again; the interrupted attempt stays on disk as it was.
 */
export function buildsExecutor(x: BuildsExecutorInput): CampaignExecutor {
  const ok = (s: string) => s === 'succeeded' || s === 'reused';
  return {
    async prepare(item) {
      const plan = x.builds.plan(await x.target(item), await x.optionsOf(x.hostOf('')));
      return { runId: plan.buildId, resultDir: plan.dir };
    },
    async start(item, prepared, host, signal) {
      const t = await x.target(item);
      const r = await x.builds.start({ ...t, role: t.role as BuildRole }, { ...(await x.optionsOf(x.hostOf(host))), buildId: prepared.runId }, signal);
      // A reused image is a success of the campaign; its record says it was reused.
      return { status: ok(r.status) ? 'succeeded' : r.status, error: r.status === 'reused' ? 'reused: the host had the image' : (r.error ?? null) };
    },
    async recorded(resultDir) {
      const read = await readBuildRecord(path.join(x.folder, resultDir));
      if (!read.ok) return null;
      const r = read.record;
      const final = FINAL_BUILD_STATES.includes(r.status);
      return { status: ok(r.status) ? 'succeeded' : r.status, final, driven: !final && ownerAlive(r.owner) };
    },
    async reattach() {},
  };
}

/** One executor for a campaign's items: runs to the runs executor, builds to the builds executor. */
export function itemExecutor(runs: CampaignExecutor, builds: CampaignExecutor | null): CampaignExecutor {
  const of = (item: CampaignItem) => {
    if (item.kind !== 'build') return runs;
    if (!builds) throw new Error(`item ${item.n} is an image build, which needs a vLLM checkout (--checkout DIR)`);
    return builds;
  };
  return {
    prepare: async item => of(item).prepare(item),
    start: async (item, prepared, host, signal) => of(item).start(item, prepared, host, signal),
    // A run's folder holds run.json, a build's build.json: the one that answers is the item's.
    async recorded(dir) {
      return (await runs.recorded(dir)) ?? (builds ? builds.recorded(dir) : null);
    },
    reattach: (host, signal) => runs.reattach(host, signal),
  };
}

/** Slots of a campaign's hosts: a campaign of builds builds one image at a time per host (a compile takes every core). */
export function slotsFor(items: readonly CampaignItem[], hosts: CampaignHost[]): CampaignHost[] {
  return items.length && items.every(i => i.kind === 'build') ? hosts.map(h => ({ ...h, gpus: 0, slots: 1 })) : hosts;
}

/** What a front end gives the driver: its folder, hosts, targets and settings. */
export interface CampaignWiring {
  runs: Runs;
  builds: Builds;
  folder: string;
  /** The campaign's hosts (the pool); the first is the default. */
  hosts: readonly HostConfig[];
  runTarget: (item: CampaignItem, runId?: string) => Promise<RunTarget>;
  /** Null when this front end cannot build (no vLLM checkout): a build item then fails saying so. */
  buildTarget: ((item: CampaignItem) => Promise<BuildTarget>) | null;
  runSettings: (host: HostConfig) => Promise<RunSettings>;
  buildOptions: (host: HostConfig) => Promise<BuildOptions>;
  secretValues: (names: string[]) => Record<string, string> | Promise<Record<string, string>>;
}

/** A pool's slots: as many runs as a host has GPUs (one on a GPU-less host unless maxParallel says more; a swarm twice its GPUs, a task per GPU waiting in the swarm). */
export function campaignHosts(hosts: readonly HostConfig[]): CampaignHost[] {
  return hosts.map(h => ({ label: h.label, gpus: h.gpus, slots: runSlots(h) }));
}

export function campaignExecutor(w: CampaignWiring): CampaignExecutor {
  const hostOf = (label: string) => w.hosts.find(h => h.label === label) ?? w.hosts[0];
  return itemExecutor(
    runsExecutor({ runs: w.runs, folder: w.folder, targetOf: w.runTarget, hostOf, settingsOf: w.runSettings, secretValues: w.secretValues }),
    w.buildTarget ? buildsExecutor({ builds: w.builds, folder: w.folder, target: w.buildTarget, hostOf, optionsOf: w.buildOptions }) : null,
  );
}

/**
 * Runs a campaign to its end on the wiring's hosts: after a reload or a crash (`resume`), first
 * puts every run where its records say it is. Cancel through `signal` or the campaign's cancel file.
 */
export async function driveCampaign(
  queue: CampaignQueue,
  w: CampaignWiring,
  opts: { signal: AbortSignal; resume?: boolean; onChange?: (r: ItemRecord) => void; log?: (s: string) => void },
): Promise<CampaignStatus> {
  const exec = campaignExecutor(w);
  if (opts.resume) await queue.reconcile(exec, opts.signal, opts.log);
  return queue.run(exec, slotsFor(queue.record.items, campaignHosts(w.hosts)), opts.signal, opts.onChange);
}
