import * as path from 'node:path';
import { statSync } from 'node:fs';
import { planAblations, type AblateOptions } from '../app/ablation';
import { analyzeFolder } from './analyzeFolder';

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
  if (a.json) out(JSON.stringify(r, null, 2));
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
