import * as path from 'node:path';
import { statSync } from 'node:fs';
import { planAblations, type AblateOptions } from '../app/ablation';
import { analyzeFolder } from './analyzeFolder';
import { ablationResults } from '../app/ablationCampaign';
import { CampaignQueue } from '../app/campaigns';
import { ablationMarkdown } from '../core/ablate/report';
import { writeFileSync } from 'node:fs';

export type AblatePlanArgs = Omit<AblateOptions, 'commits' | 'entries' | 'agentRuns'> & { json: boolean };

const hours = (h: number) => (h < 10 ? h.toFixed(2) : h.toFixed(0));

/** `bench-triage ablate plan`: the units, variants and runs of patch ablations, before anything runs. */
export async function ablatePlanCommand(a: AblatePlanArgs, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  try {
    if (!statSync(a.folder).isDirectory()) throw new Error();
  } catch {
    err(`bench-triage ablate plan: ${a.folder} is not a folder\n`);
    return 2;
  }
  const folder = path.resolve(a.folder);
  const analysis = await analyzeFolder(folder);
  let r: Awaited<ReturnType<typeof planAblations>>;
  try {
    r = await planAblations({ ...a, folder, commits: analysis.scan.commits, entries: analysis.entries, agentRuns: analysis.scan.agentRuns });
  } catch (e) {
    err(`bench-triage ablate plan: ${(e as Error).message}\n`);
    return 2;
  }
  if (!a.checkout) err('ablate plan: no --checkout: units are not checked to apply alone on the parent\n');
  if (a.json) out(JSON.stringify({ ...r, plans: r.plans.map(({ files: _files, ...p }) => p) }, null, 2));
  else {
    for (const p of r.plans) {
      const pl = p.plan;
      out(
        `${p.commit.slice(0, 12)}${p.agent ? ` ${p.agent}` : ''}: ${p.patch} patch, ${p.units.length} unit${p.units.length === 1 ? '' : 's'} by ${p.mode === 'hunks' ? 'hunk' : 'file'} (${p.checked === 'parent' ? 'each applies on the parent' : `unchecked: ${p.uncheckedWhy}`})`,
      );
      for (const u of p.units) out(`  ${u.id}  +${u.added} -${u.removed}  ${u.label}`);
      for (const m of p.merges) out(`  merged into ${m.into}: ${m.from.join(', ')} (${m.why})`);
      out(
        `  ${pl.design}, ${pl.repeats} repeat${pl.repeats === 1 ? '' : 's'}: ${pl.variants.length} variants, ${pl.runs.length} runs${pl.maxTests !== null ? ` + up to ${pl.maxTests} subsets × ${pl.repeats} (≤ ${pl.maxRuns} runs)` : ''}, ≤ ${hours(pl.gpuHours)} GPU-hours at ${pl.estimateS < 90 ? `${Math.round(pl.estimateS)} s` : `${Math.round(pl.estimateS / 60)} min`} a run`,
      );
    }
    for (const x of r.refusals) out(`refused ${x.commit.slice(0, 12)}${x.agent ? ` ${x.agent}` : ''}: ${x.reason}`);
    out(`${r.plans.length} planned, ${r.refusals.length} refused`);
  }
  return r.plans.length ? 0 : 1;
}

export interface AblateReportArgs {
  folder: string;
  /** The ablation campaign; default: the newest one. */
  id?: string;
  format: 'md' | 'json';
  metric?: string;
  band: number;
  outFile?: string;
}

/** `bench-triage ablate report`: each unit's measured effect, from an ablation campaign's runs so far. */
export async function ablateReportCommand(a: AblateReportArgs, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const folder = path.resolve(a.folder);
  const id = a.id ?? (await CampaignQueue.list(folder)).find(x => x.startsWith('ablate-'));
  if (!id) {
    err(`bench-triage ablate report: no ablation campaign in ${folder}\n`);
    return 1;
  }
  let r: Awaited<ReturnType<typeof ablationResults>>;
  try {
    r = await ablationResults(folder, id, { metric: a.metric, band: a.band });
  } catch (e) {
    err(`bench-triage ablate report: campaign ${id}: ${(e as Error).message}\n`);
    return 1;
  }
  const text =
    a.format === 'json'
      ? JSON.stringify(
          { id, ...r.record, pending: r.pending, results: Object.fromEntries(r.results), attribution: r.attribution, why: r.why, minimal: r.minimal },
          null,
          2,
        )
      : ablationMarkdown({ ...r.record, results: r.results, pending: r.pending, attribution: r.attribution, why: r.why, minimal: r.minimal });
  if (a.outFile) {
    writeFileSync(a.outFile, text.endsWith('\n') ? text : text + '\n');
    err(`ablate report: written to ${a.outFile}\n`);
  } else out(text);
  return r.attribution ? 0 : 1;
}
