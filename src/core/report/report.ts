import type { Role } from '../model';
import { CATEGORIES, FIXABILITIES, category, type Fixability } from '../classify/taxonomy';
import { aggregate, type CommitTriage, type Verdict } from '../compare/triage';
import { metricDef } from '../ingest/metrics';

export interface TriageReport {
  generatedAt: string;
  folder: string;
  tieBand: number;
  totals: { entries: number; commits: number; complete: number; incomparable: number; partial: number; failed: number };
  summary: Array<{ outcome: string; title: string; count: number; fixability: Fixability | null; description: string }>;
  threeWay: Array<{ commit: string; agent: string | null; metric: string; unit: string; baseline: number | null; human: number; agentValue: number;
    humanImprovement: number | null; agentImprovement: number | null; agentVsHuman: number; verdict: Verdict; comparable: boolean; reasons: string[] }>;
  failures: Array<{ commit: string; agent: string | null; outcome: string; role: Role; cause: string | null; description: string; rule: string | null;
    evidence: { file: string; field: string | null; line: number; text: string } | null }>;
  actionPlan: Record<Fixability, string[]>;
  agents: Record<string, Record<Verdict, number>>;
}

export function buildReport(entries: readonly CommitTriage[], folder: string, tieBand: number, now = new Date()): TriageReport {
  const agg = aggregate(entries);
  const titleOf = (o: string) => ({ complete: 'Complete 3-way', incomparable: 'Measured, not comparable', partial: 'Partial (roles never ran)' } as Record<string, string>)[o] ?? category(o).title;
  const descOf = (o: string) => ({ complete: 'All three roles measured and comparable.', incomparable: 'All three roles measured, but with different models, workloads, GPUs or pipelines.', partial: 'Some roles have no run at all.' } as Record<string, string>)[o] ?? category(o).description;
  const order = ['complete', 'incomparable', 'partial', ...CATEGORIES.map(c => c.id)];
  const summary = Object.entries(agg.byOutcome)
    .sort(([a, x], [b, y]) => y - x || order.indexOf(a) - order.indexOf(b))
    .map(([outcome, count]) => ({ outcome, title: titleOf(outcome), count, fixability: ['complete', 'incomparable', 'partial'].includes(outcome) ? null : category(outcome).fixability, description: descOf(outcome) }));
  const threeWay = entries.filter(e => e.comparison && (e.outcome === 'complete' || e.outcome === 'incomparable')).map(e => ({
    commit: e.commit, agent: e.agent, metric: e.comparison!.metric, unit: metricDef(e.comparison!.metric)?.unit ?? '',
    baseline: e.comparison!.baseline, human: e.comparison!.human, agentValue: e.comparison!.agent,
    humanImprovement: e.comparison!.humanImprovement, agentImprovement: e.comparison!.agentImprovement, agentVsHuman: e.comparison!.agentVsHuman,
    verdict: e.verdict, comparable: e.comparability.ok, reasons: e.comparability.reasons,
  }));
  const failures = entries.filter(e => e.blockingRole).map(e => {
    const c = e.roles[e.blockingRole!].classification;
    return { commit: e.commit, agent: e.agent, outcome: e.outcome, role: e.blockingRole!, cause: c?.cause ?? null, description: c?.description ?? '', rule: c?.rule ?? null, evidence: c?.evidence ?? null };
  });
  const actionPlan = Object.fromEntries(FIXABILITIES.map(f => [f, [] as string[]])) as Record<Fixability, string[]>;
  for (const f of failures) {
    const fix = entries.find(e => e.commit === f.commit && e.agent === f.agent)!.roles[f.role].classification?.fixability ?? category(f.outcome).fixability;
    if (!actionPlan[fix].includes(f.commit)) actionPlan[fix].push(f.commit);
  }
  return {
    generatedAt: now.toISOString(), folder, tieBand,
    totals: { entries: entries.length, commits: new Set(entries.map(e => e.commit)).size, complete: agg.byOutcome.complete ?? 0, incomparable: agg.byOutcome.incomparable ?? 0,
      partial: agg.byOutcome.partial ?? 0, failed: failures.length },
    summary, threeWay, failures, actionPlan, agents: agg.byAgent,
  };
}

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/`/g, "'");
const num = (v: number | null, digits = 2) => (v === null ? '—' : Number.isInteger(v) ? String(v) : v.toFixed(digits));
const pct = (v: number | null) => (v === null ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(1)} %`);

const FIX_TITLES: Record<Fixability, string> = {
  retry: 'Retry', recipe: 'Rerun with a recipe', rebuild: 'Rebuild the image or wheel', config: 'Change the benchmark configuration',
  'more-gpus': 'Needs more GPUs', unfixable: 'Not fixable here', investigate: 'Investigate', dataset: 'Fix the dataset', agent: 'Agent lost (valid outcome)',
};

export function renderMarkdown(r: TriageReport): string {
  const out: string[] = [];
  out.push(`# Triage report — ${esc(r.folder)}`, '', `Generated ${r.generatedAt} by Bench Triage. Tie band ±${r.tieBand} %.`, '');
  out.push(`${r.totals.entries} commit × agent entries over ${r.totals.commits} commits: ${r.totals.complete} complete, ${r.totals.incomparable} incomparable, ${r.totals.partial} partial, ${r.totals.failed} failed.`, '');
  out.push('## Summary by outcome', '', '| outcome | count | fixability | what it means |', '|---|---:|---|---|');
  for (const s of r.summary) out.push(`| ${esc(s.title)} (\`${s.outcome}\`) | ${s.count} | ${s.fixability ?? '—'} | ${esc(s.description)} |`);
  out.push('', '## Successful 3-way comparisons', '');
  if (!r.threeWay.length) out.push('None.');
  else {
    out.push('| commit | agent | metric | baseline | human | agent | human vs baseline | agent vs baseline | agent vs human | verdict | comparable |', '|---|---|---|---:|---:|---:|---:|---:|---:|---|---|');
    for (const t of r.threeWay) {
      out.push(`| ${t.commit.slice(0, 8)} | ${t.agent ?? '—'} | ${t.metric}${t.unit ? ` (${t.unit})` : ''} | ${num(t.baseline)} | ${num(t.human)} | ${num(t.agentValue)} | ${pct(t.humanImprovement)} | ${pct(t.agentImprovement)} | ${pct(t.agentVsHuman)} | ${t.verdict} | ${t.comparable ? 'yes' : `no: ${esc(t.reasons.join('; '))}`} |`);
    }
  }
  out.push('', '## Agents', '', '| agent | win | tie | loss | agent failed | n/a |', '|---|---:|---:|---:|---:|---:|');
  for (const [a, v] of Object.entries(r.agents)) out.push(`| ${esc(a)} | ${v.win} | ${v.tie} | ${v.loss} | ${v['agent-failed']} | ${v['n/a']} |`);
  out.push('', '## Failures', '', '| commit | agent | outcome | role | cause | evidence |', '|---|---|---|---|---|---|');
  for (const f of r.failures) {
    const ev = f.evidence ? `${esc(f.evidence.file)}${f.evidence.field ? ` (${f.evidence.field})` : ''}:${f.evidence.line}: \`${esc(f.evidence.text.slice(0, 160))}\`` : esc(f.description.slice(0, 160));
    out.push(`| ${f.commit.slice(0, 8)} | ${f.agent ?? '—'} | ${f.outcome} | ${f.role} | ${f.cause ?? '—'} | ${ev} |`);
  }
  out.push('', '## Action plan', '');
  for (const fix of FIXABILITIES) {
    const commits = r.actionPlan[fix];
    if (!commits.length) continue;
    out.push(`### ${FIX_TITLES[fix]} (${commits.length})`, '', commits.map(c => `\`${c.slice(0, 8)}\``).join(', '), '');
  }
  return out.join('\n') + '\n';
}
