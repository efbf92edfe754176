// A campaign's plan as both front ends make it, checked as `plan` and `build` check one run or image.
import type { Commit, Role } from '../core/model';
import type { CommitTriage } from '../core/compare';
import { buildEstimate, durationEstimates, planBuildCampaign, planCampaign, type CampaignPlan } from '../core/campaign/plan';
import type { HostConfig } from '../core/run/hosts';
import { imageTemplatesOf, planRun, type ImageTemplates } from '../core/run/plan';
import type { BuildOptions, Builds } from './builds';

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
  const templates = imageTemplatesOf(p.templates);
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
