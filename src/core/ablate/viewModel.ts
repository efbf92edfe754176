import type { AblationData, AblationEffectView } from '../report/viewTypes';
import type { Effect } from './attribution';
import { effectText, minimalText, type AblationReportInput } from './report';

const view = (e: Effect | null): AblationEffectView | null =>
  e && { change: e.change, ci: e.ci, verdict: e.verdict, single: e.basis === 'single', text: effectText(e) };

/** The Ablation webview's data: the report's figures grouped by the patch's files. Texts stay raw (the webview sets them as text). */
export function ablationData(id: string, r: AblationReportInput): AblationData {
  const a = r.attribution;
  const byUnit = new Map(a?.units.map(u => [u.unit, u]) ?? []);
  const minimal = new Set(r.minimal?.units ?? []);
  const files: AblationData['files'] = [];
  for (const u of r.units) {
    let f = files.find(x => x.path === u.path);
    if (!f) files.push((f = { path: u.path, units: [] }));
    const at = byUnit.get(u.id);
    f.units.push({
      id: u.id,
      label: u.label,
      added: u.added,
      removed: u.removed,
      alone: view(at?.alone ?? null),
      removal: view(at?.removal ?? null),
      inMinimal: minimal.has(u.id),
    });
  }
  const m = r.minimal;
  return {
    view: 'ablation',
    id,
    commit: r.commit,
    agent: r.agent,
    patch: r.patch,
    design: r.design,
    metric: a?.metric ?? null,
    direction: a?.direction ?? null,
    full: view(a?.full ?? null),
    files,
    findings: a?.findings ?? [],
    merges: r.merges.map(x => `${x.into} takes ${x.from.join(', ')}: ${x.why}`),
    pending: r.pending,
    why: r.why,
    minimal: m ? { units: [...m.units], whole: m.units.length === r.units.length, text: minimalText(m, r.units.length) } : null,
    variants: [...r.results].map(([id, v]) => ({ id, measured: v.values.length, broken: v.broken[0] ?? null })),
  };
}
