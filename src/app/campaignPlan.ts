import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import type { Commit, Role } from '../core/model';
import type { CommitTriage } from '../core/compare';
import { durationEstimates, planCampaign, type CampaignItem, type CampaignPlan } from '../core/campaign/plan';
import type { HostConfig } from '../runner/hosts';
import { DEFAULT_TEMPLATES, planRun, PlanError, type ImageTemplates } from '../runner/plan';
import { FINAL_STATES, type RunRecord } from '../runner/runRecord';
import { ownerAlive } from '../runner/execute';
import type { CampaignExecutor } from './campaigns';
import type { Runs, RunSettings, RunTarget } from './runs';

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
        return { refused: err instanceof PlanError || err instanceof Error ? err.message : String(err) };
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
      try {
        const r = JSON.parse(await fs.readFile(path.join(x.folder, resultDir, 'run.json'), 'utf8')) as RunRecord;
        const final = FINAL_STATES.includes(r.status);
        return { status: r.status, final, driven: !final && ownerAlive(r.owner) };
      } catch {
        return null;
      }
    },
    async reattach(host, signal) {
      await x.runs.resume(x.folder, (await x.settingsOf(host)).host, x.secretValues, signal);
    },
  };
}
