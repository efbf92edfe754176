import * as path from 'node:path';
import type { Role } from '../core/model';
import { parseSelector, refusalLines, rolesOf, selectEntries, type CampaignPlan } from '../core/campaign/plan';
import { buildCampaignPlanFor, campaignPlanFor } from '../app/campaignPlans';
import { driveCampaign, type CampaignWiring } from '../app/campaignDriver';
import { Builds, type BuildOptions } from '../app/builds';
import type { BuildRole } from '../core/run/buildPlan';
import { CampaignQueue, CampaignRecordError, type ItemRecord } from '../app/campaigns';
import { Runs, type RunSettings } from '../app/runs';
import { analyzeFolder, loadUserRules } from './analyzeFolder';
import type { HostConfig } from '../core/run/hosts';
import { imageTemplatesOf } from '../core/run/plan';
import { resolveTarget } from './target';
import { clean } from './terminal';
import { planAblations, type AblateOptions } from '../app/ablation';
import { createAblationCampaign, MINIMISE_FILE, readAblationRecord, runMinimise, variantPatchOf } from '../app/ablationCampaign';
import { existsSync } from 'node:fs';

type Out = (s: string) => void;

export interface CampaignArgs {
  sub: 'plan' | 'start' | 'status' | 'cancel' | 'resume' | 'ablate';
  folder: string;
  select?: string;
  repeats: number;
  id?: string;
  json: boolean;
  /** A campaign of image builds (the images the selected commits' failures call for), not of runs. */
  build?: boolean;
  hosts: HostConfig[];
  settings: Omit<RunSettings, 'host'>;
  secretValues: (names: string[]) => Record<string, string>;
  /** `ablate start`: the commit's patch ablation as a campaign (see `app/ablation`). */
  ablation?: Pick<AblateOptions, 'commit' | 'agent' | 'patch' | 'units' | 'design' | 'repeats' | 'maxTests'>;
}

/** The folder's entries and scan (scan → classify → triage), the same as `classify` gives. */
async function analysisOf(folder: string) {
  const an = await analyzeFolder(folder, { rules: loadUserRules(folder, undefined, () => {}) });
  return { entries: an.entries, result: an.workspace.result, categoryOf: (id: string) => an.classifications.get(id)?.category ?? null };
}

async function planFor(a: CampaignArgs): Promise<CampaignPlan> {
  if (!a.select) throw new Error('campaign plan/start needs --select (e.g. category=wheel-missing)');
  const selector = parseSelector(a.select);
  const { entries, result, categoryOf } = await analysisOf(a.folder);
  if (a.build) {
    const named = selector.clauses.some(c => c.key === 'role');
    return buildCampaignPlanFor({
      all: entries,
      picked: selectEntries(entries, selector, categoryOf),
      commits: result.commits,
      only: named ? rolesOf(selector) : undefined,
      builds: new Builds(),
      options: buildOptions(a, a.hosts[0]),
    });
  }
  return campaignPlanFor({
    all: entries,
    picked: selectEntries(entries, selector, categoryOf),
    commits: result.commits,
    roles: rolesOf(selector),
    repeats: a.repeats,
    host: a.hosts[0],
    recipes: a.settings.recipes,
    templates: a.settings.templates,
  });
}

function buildOptions(a: CampaignArgs, host: HostConfig): BuildOptions {
  return {
    host,
    checkout: a.settings.checkout ? path.resolve(a.settings.checkout) : null,
    settings: {
      templates: imageTemplatesOf(a.settings.templates),
    },
  };
}

const hoursMin = (s: number) => (s >= 3600 ? `${(s / 3600).toFixed(1)} h` : `${Math.round(s / 60)} min`);

function printPlan(plan: CampaignPlan, out: Out): void {
  const roles = (r: Role) => plan.items.filter(i => i.role === r).length;
  if (plan.items.some(i => i.kind === 'build'))
    out(`${plan.items.length} image builds (baseline ${roles('baseline')}, human ${roles('human')}), one at a time per host, no GPU`);
  else
    out(
      `${plan.items.length} runs (baseline ${roles('baseline')}, human ${roles('human')}, agent ${roles('agent')}), about ${plan.gpuHours.toFixed(1)} GPU-hours`,
    );
  for (const i of plan.items.slice(0, 30))
    out(
      `  ${String(i.n).padStart(4)}  ${i.commit.slice(0, 8)} ${i.role.padEnd(8)} ${i.kind === 'build' ? `build      ~${hoursMin(i.estimateS)}` : `repeat ${i.repeat}  ~${hoursMin(i.estimateS)} × ${i.gpus} GPU`}`,
    );
  if (plan.items.length > 30) out(`  … ${plan.items.length - 30} more`);
  if (plan.refusals.length) {
    out(`${plan.refusals.length} refused:`);
    for (const line of refusalLines(plan.refusals)) out(`  ${clean(line)}`);
  }
}

/** The CLI's side of a campaign: targets read from the folder, settings from the options. */
function wiring(a: CampaignArgs, runs: Runs, builds: Builds): CampaignWiring {
  return {
    runs,
    builds,
    folder: a.folder,
    hosts: a.hosts,
    async runTarget(item, runId) {
      const t = await resolveTarget(a.folder, item.commit, item.role);
      // An ablation's variant applies its own subset of the patch.
      const variant = await variantPatchOf(a.folder, item);
      return {
        folder: a.folder,
        commit: t.commit,
        roles: [item.role],
        agentRun: t.agentRun,
        agentPatch: variant ?? (t.patchPath ? path.resolve(a.folder, t.patchPath) : null),
        runId,
      };
    },
    buildTarget: a.settings.checkout
      ? async item => {
          const t = await resolveTarget(a.folder, item.commit, item.role);
          return { folder: a.folder, commit: t.commit, role: item.role as BuildRole };
        }
      : null,
    runSettings: async host => ({ ...a.settings, host }),
    buildOptions: async host => buildOptions(a, host),
    secretValues: a.secretValues,
  };
}

function printStatus(s: Awaited<ReturnType<CampaignQueue['status']>>, out: Out): void {
  out(
    `campaign ${s.id}: ${s.done} done, ${s.running} running, ${s.queued} queued, ${s.failed} failed, ${s.cancelled} cancelled${s.unreadable ? `, ${s.unreadable} unreadable` : ''} of ${s.total}${s.etaS !== null ? `; about ${hoursMin(s.etaS)} left` : ''}`,
  );
  for (const f of s.findings.slice(0, 20)) out(`  ${clean(f)}`);
  if (s.findings.length > 20) out(`  … and ${s.findings.length - 20} more unreadable run records`);
}

/**
 * `bench-triage campaign plan|start|status|cancel|resume`: many runs, repeated and interleaved,
 * through a durable queue in the folder, on a pool of hosts (each taking as many runs as it has GPUs).
 */
export async function campaignCommand(a: CampaignArgs, out: Out, err: Out, signal: AbortSignal): Promise<number> {
  a = { ...a, folder: path.resolve(a.folder) };
  const runs = new Runs();
  const builds = new Builds();
  const progress = (r: { n: number; state: string; runStatus: string | null; host: string | null; error: string | null }) =>
    err(
      `[run ${r.n}] ${r.state}${r.host ? ` on ${clean(r.host)}` : ''}${r.runStatus && r.runStatus !== r.state ? ` (${r.runStatus})` : ''}${r.error ? `: ${clean(r.error)}` : ''}\n`,
    );
  switch (a.sub) {
    case 'plan': {
      const plan = await planFor(a);
      if (a.json) out(JSON.stringify(plan, null, 2));
      else printPlan(plan, out);
      return plan.items.length ? 0 : 1;
    }
    case 'start': {
      const plan = await planFor(a);
      if (!plan.items.length) {
        printPlan(plan, err);
        err('nothing to run\n');
        return 1;
      }
      const q = await CampaignQueue.create(a.folder, plan, { select: a.select!, repeats: a.repeats, hosts: a.hosts.map(h => h.label), id: a.id });
      err(
        `campaign ${q.record.id}: ${plan.items.length} ${a.build ? 'image builds' : `runs, about ${plan.gpuHours.toFixed(1)} GPU-hours`} (${path.relative(a.folder, q.dir)})\n`,
      );
      out(q.record.id);
      const s = await driveCampaign(q, wiring(a, runs, builds), { signal, onChange: progress });
      printStatus(s, err);
      return s.failed || s.cancelled ? 1 : 0;
    }
    case 'ablate': {
      const an = await analysisOf(a.folder);
      const r = await planAblations({
        ...a.ablation!,
        folder: a.folder,
        commits: an.result.commits,
        entries: an.entries,
        agentRuns: an.result.agentRuns,
        host: a.hosts[0],
        checkout: a.settings.checkout ?? null,
      });
      if (!r.plans.length) {
        for (const x of r.refusals) err(`refused ${x.commit.slice(0, 12)}${x.agent ? ` ${x.agent}` : ''}: ${clean(x.reason)}\n`);
        return 1;
      }
      const ab = r.plans[0];
      const q = await createAblationCampaign(a.folder, ab, ab.files, { hosts: a.hosts.map(h => h.label), id: a.id });
      err(
        `campaign ${q.record.id}: ablation of ${ab.commit.slice(0, 12)} (${ab.units.length} units, ${ab.plan.design}): ${q.record.items.length} runs, about ${ab.plan.gpuHours.toFixed(1)} GPU-hours (${path.relative(a.folder, q.dir)})\n`,
      );
      out(q.record.id);
      if (ab.plan.design === 'minimise') return minimise(a, q, runs, builds, signal, progress, err, false);
      const s = await driveCampaign(q, wiring(a, runs, builds), { signal, onChange: progress });
      printStatus(s, err);
      return s.failed || s.cancelled ? 1 : 0;
    }
    case 'resume': {
      const id = a.id ?? (await CampaignQueue.list(a.folder))[0];
      if (!id) throw new Error(`campaign resume: no campaign in ${a.folder}`);
      const q = await CampaignQueue.load(a.folder, id);
      if (q.record.items.some(i => i.kind === 'build') && !a.settings.checkout)
        throw new Error(`campaign ${id} builds images: resume needs --checkout DIR (the vLLM checkout their source comes from)`);
      // A minimise ablation goes on with ddmin where it stopped (the subsets measured answer from their runs).
      const ab = await readAblationRecord(q.dir).catch(() => null);
      if (ab?.design === 'minimise' && !existsSync(path.join(q.dir, MINIMISE_FILE))) return minimise(a, q, runs, builds, signal, progress, err, true);
      const s = await driveCampaign(q, wiring(a, runs, builds), { signal, resume: true, onChange: progress, log: err });
      printStatus(s, err);
      return s.failed || s.cancelled ? 1 : 0;
    }
    case 'status': {
      const ids = a.id ? [a.id] : await CampaignQueue.list(a.folder);
      // One campaign whose records can't be read is said on its own line; the others still show.
      const all: Array<Awaited<ReturnType<CampaignQueue['status']>> | { id: string; error: string }> = [];
      for (const id of ids)
        try {
          all.push(await (await CampaignQueue.load(a.folder, id)).status());
        } catch (e) {
          if (!(e instanceof CampaignRecordError)) throw e;
          all.push({ id, error: e.message });
        }
      if (a.json) out(JSON.stringify(all, null, 2));
      else if (!all.length) out(`no campaigns in ${a.folder}`);
      else
        for (const s of all) {
          if ('error' in s) out(`campaign ${s.id}: cannot be read — ${clean(s.error)}`);
          else printStatus(s, out);
        }
      return all.some(s => 'error' in s || s.unreadable) ? 1 : 0;
    }
    case 'cancel': {
      const id = a.id ?? (await CampaignQueue.list(a.folder))[0];
      if (!id) throw new Error(`campaign cancel: no campaign in ${a.folder}`);
      const q = await CampaignQueue.load(a.folder, id);
      const n = await q.requestCancel();
      out(`campaign ${id}: cancel requested; ${n} queued runs cancelled, running ones stop within a second`);
      return 0;
    }
  }
}

/** The minimise design of an ablation campaign, run (or resumed) to its smallest subset. */
async function minimise(
  a: CampaignArgs,
  q: CampaignQueue,
  runs: Runs,
  builds: Builds,
  signal: AbortSignal,
  progress: (r: ItemRecord) => void,
  err: Out,
  resume: boolean,
): Promise<number> {
  const ab = await readAblationRecord(q.dir);
  let first = resume;
  const drive = async () => {
    const s = await driveCampaign(q, wiring(a, runs, builds), { signal, resume: first, onChange: progress, log: err });
    first = false;
    return s;
  };
  try {
    const m = await runMinimise(a.folder, q, drive, { maxTests: ab.maxTests ?? 4 * ab.units.length, repeats: ab.repeats ?? q.record.repeats, signal });
    err(
      `minimise: the smallest subset that keeps the full patch's effect is ${m.result.subset.join(', ')} of ${ab.units.length} units, after ${m.result.tests.length} subsets measured${m.result.exhausted ? ' (the bound was reached: it may not be the smallest)' : ''}; its patch: ${m.patch}\n`,
    );
  } catch (e) {
    err(`minimise stopped: ${(e as Error).message}\n`);
  }
  const s = await q.status();
  printStatus(s, err);
  return s.cancelled ? 1 : 0;
}
