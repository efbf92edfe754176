import * as path from 'node:path';
import type { Commit, Role } from '../core/model';
import type { CommitTriage } from '../core/compare';
import { buildEstimate, durationEstimates, planBuildCampaign, planCampaign, type CampaignItem, type CampaignPlan } from '../core/campaign/plan';
import type { BuildRole } from '../core/run/buildPlan';
import { FINAL_BUILD_STATES } from '../core/run/records';
import type { HostConfig } from '../core/run/hosts';
import { DEFAULT_TEMPLATES, planRun, type ImageTemplates } from '../core/run/plan';
import { FINAL_STATES } from '../core/run/records';
import { readBuildRecord, settledRecord } from '../runner/recordRead';
import { ownerAlive } from '../platform/processAlive';
import type { CampaignExecutor, CampaignHost } from './campaigns';
import type { Runs, RunSettings, RunTarget } from './runs';
import type { BuildOptions, Builds, BuildTarget } from './builds';

export interface CampaignPlanInput {
  /** Every entry of the folder (the duration estimates use all of them). */
  all: readonly CommitTriage[];
  /** The entries the campaign runs. */
  picked: readonly CommitTriage[];
  commits: readonly Commit[];
  roles: readonly Role[];
  repeats: number;
  host: HostConfig;
  recipes?: string[];
  templates?: Partial<ImageTemplates>;
}

/** A plan's refusal (PlanError, BuildPlanError …) as a campaign lists it. */
const refusal = (err: unknown) => ({ refused: err instanceof Error ? err.message : String(err) });

/**
 * A campaign's plan as both front ends make it: each (commit, role) checked as `plan` checks it
 * (perf command, placeholders, GPUs), the agent role refused without a patch to apply, durations
 * from the data.
 */
export function campaignPlanFor(p: CampaignPlanInput): CampaignPlan {
  const commits = new Map(p.commits.map(c => [c.hash, c]));
  const templates = { human: p.templates?.human || DEFAULT_TEMPLATES.human, baseline: p.templates?.baseline || DEFAULT_TEMPLATES.baseline };
  return planCampaign({
    entries: p.picked,
    roles: p.roles,
    repeats: p.repeats,
    estimate: durationEstimates(p.all),
    check: (e, role) => {
      const c = commits.get(e.commit);
      if (!c) return { refused: 'the commit is not in the dataset' };
      if (role === 'agent' && !e.agent) return { refused: 'no agent run (no patch to apply)' };
      try {
        const plan = planRun(c, role, {
          host: p.host,
          recipes: p.recipes ?? [],
          agentPatch: role === 'agent' ? '(read at start)' : null,
          runId: 'plan',
          templates,
        });
        return { gpus: Math.max(1, plan.tensorParallel ?? 1) };
      } catch (err) {
        return refusal(err);
      }
    },
  });
}

export interface RunsExecutorInput {
  runs: Runs;
  folder: string;
  /** The run target of an item (one role), with the run id fixed in advance when given. */
  targetOf: (item: CampaignItem, runId?: string) => Promise<RunTarget>;
  /** Run settings on a host of the pool, by its label. */
  settingsOf: (hostLabel: string) => Promise<RunSettings>;
  secretValues: (names: string[]) => Record<string, string> | Promise<Record<string, string>>;
}

/** The app's Runs behind a campaign queue: one role per run, its id fixed before it starts. */
export function runsExecutor(x: RunsExecutorInput): CampaignExecutor {
  return {
    async prepare(item) {
      const [plan] = x.runs.plan(await x.targetOf(item), await x.settingsOf(''));
      return { runId: path.basename(plan.resultDir), resultDir: plan.resultDir };
    },
    async start(item, prepared, host, signal) {
      const [rec] = await x.runs.start(await x.targetOf(item, prepared.runId), await x.settingsOf(host), signal);
      return { status: rec.status, error: rec.error ?? null };
    },
    async recorded(resultDir) {
      const r = await settledRecord(path.join(x.folder, resultDir));
      if (!r) return null;
      const final = FINAL_STATES.includes(r.status);
      return { status: r.status, final, driven: !final && ownerAlive(r.owner) };
    },
    async reattach(host, signal) {
      await x.runs.resume(x.folder, (await x.settingsOf(host)).host, x.secretValues, signal);
    },
  };
}

export interface BuildCampaignInput {
  all: readonly CommitTriage[];
  picked: readonly CommitTriage[];
  commits: readonly Commit[];
  /** Roles asked for; else each failed role whose fix is a rebuild. */
  only?: readonly Role[];
  builds: Builds;
  options: BuildOptions;
}

/** A campaign of the images `picked` needs, each checked as `build` checks it (checkout, templates); one build per image. */
export function buildCampaignPlanFor(p: BuildCampaignInput): CampaignPlan {
  const commits = new Map(p.commits.map(c => [c.hash, c]));
  return planBuildCampaign({
    entries: p.picked,
    only: p.only,
    estimateS: buildEstimate(p.all),
    check: (e, role) => {
      const commit = commits.get(e.commit);
      if (!commit) return { refused: 'the commit is not in the dataset' };
      try {
        return { tag: p.builds.plan({ folder: '', commit, role }, p.options).tag };
      } catch (err) {
        return refusal(err);
      }
    },
  });
}

export interface BuildsExecutorInput {
  builds: Builds;
  folder: string;
  target: (item: CampaignItem) => Promise<BuildTarget>;
  /** Build options on a host of the pool, by its label. */
  optionsOf: (hostLabel: string) => Promise<BuildOptions>;
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
      const plan = x.builds.plan(await x.target(item), await x.optionsOf(''));
      return { runId: plan.buildId, resultDir: plan.dir };
    },
    async start(item, prepared, host, signal) {
      const t = await x.target(item);
      const r = await x.builds.start({ ...t, role: t.role as BuildRole }, { ...(await x.optionsOf(host)), buildId: prepared.runId }, signal);
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
