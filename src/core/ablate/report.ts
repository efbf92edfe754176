import { mdText } from '../report/markdown';
import type { Attribution, Effect, VariantResult } from './attribution';
import type { PatchUnit, UnitMerge } from './units';

export interface AblationReportInput {
  commit: string;
  agent: string | null;
  patch: 'agent' | 'human';
  design: string;
  units: readonly PatchUnit[];
  merges: readonly UnitMerge[];
  results: ReadonlyMap<string, VariantResult>;
  pending: number;
  attribution: Attribution | null;
  why: string | null;
  /** What minimise found (absent: not a minimise ablation, or not ended). */
  minimal?: {
    units: readonly string[];
    patch: string;
    exhausted: boolean;
    tests: number;
    vsBaseline: Effect | null;
    vsFull: Effect | null;
  } | null;
}

const pct = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(1)} %`;

/** An effect as a table cell: change, interval and verdict (single runs: a hint, with "?"). */
export function effectText(e: Effect | null): string {
  if (!e) return '—';
  const ci = e.ci ? ` [${pct(e.ci[0])}, ${pct(e.ci[1])}]` : '';
  return `${pct(e.change)}${ci} ${e.verdict}${e.basis === 'single' ? '?' : ''}`;
}

/** What minimise found, in one sentence (the report's and the webview's). */
export function minimalText(m: NonNullable<AblationReportInput['minimal']>, units: number): string {
  if (m.units.length === units)
    return `No smaller subset keeps the full patch's effect: all ${units} units are needed (${m.tests} subset${m.tests === 1 ? '' : 's'} measured).`;
  const bound = m.exhausted ? '; the bound was reached, so it may not be the smallest' : '';
  return `${m.units.join(', ')} of ${units} units keep${m.units.length === 1 ? 's' : ''} the full patch's effect (${m.tests} subset${m.tests === 1 ? '' : 's'} measured${bound}): against the parent ${effectText(m.vsBaseline)}, against the full patch ${effectText(m.vsFull)}.`;
}

/** The ablation as Markdown: each unit's effect alone and by its removal, the findings, what is still running. Every text from the data is escaped. */
export function ablationMarkdown(r: AblationReportInput): string {
  const out: string[] = [];
  out.push(`# Patch ablation of ${mdText(r.commit.slice(0, 12))}${r.agent ? ` (${mdText(r.agent)})` : ''}`, '');
  out.push(`The ${r.patch} patch in ${r.units.length} unit${r.units.length === 1 ? '' : 's'}, design ${mdText(r.design)}.`, '');
  if (r.pending) out.push(`${r.pending} run${r.pending === 1 ? '' : 's'} still queued or running: the figures below will change.`, '');
  const a = r.attribution;
  if (!a) out.push(`No attribution yet: ${mdText(r.why ?? 'nothing measured')}.`, '');
  else {
    out.push(`Metric: ${mdText(a.metric)} (${a.direction} is better). The full patch against the parent: ${effectText(a.full)}.`, '');
    out.push('| Unit | Lines | Alone vs parent | Removed from the full patch | Hunk |', '|---|---|---|---|---|');
    const byId = new Map(r.units.map(u => [u.id, u]));
    for (const u of a.units) {
      const unit = byId.get(u.unit);
      out.push(`| ${u.unit} | +${unit?.added ?? 0} −${unit?.removed ?? 0} | ${effectText(u.alone)} | ${effectText(u.removal)} | ${mdText(u.label, 160)} |`);
    }
    out.push('');
    if (a.findings.length) out.push('## Findings', '', ...a.findings.map(f => `- ${mdText(f, 600)}`), '');
  }
  if (r.minimal) out.push('## Minimal subset', '', mdText(minimalText(r.minimal, r.units.length), 2000), '', `Its patch: ${mdText(r.minimal.patch)}`, '');
  if (r.merges.length)
    out.push('## Units merged before running', '', ...r.merges.map(m => `- ${mdText(m.into)} takes ${mdText(m.from.join(', '))}: ${mdText(m.why, 600)}`), '');
  out.push('## Runs per variant', '', '| Variant | Measured | Broke |', '|---|---|---|');
  for (const [id, v] of r.results)
    out.push(`| ${mdText(id)} | ${v.values.length} | ${v.broken.length ? `${v.broken.length}: ${mdText(v.broken[0], 160)}` : '0'} |`);
  return out.join('\n') + '\n';
}
