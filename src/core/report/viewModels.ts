import { category } from '../classify/taxonomy';
import type { CommitTriage } from '../compare/triage';
import { improvement } from '../compare/metrics';
import { METRICS, metricDef } from '../ingest/metrics';
import { ROLES } from '../model';
import type { ComparisonData, DashboardData } from './viewTypes';
import type { TriageReport } from './report';

/** What the Comparison webview shows for one commit: metrics × roles, failures with evidence, attempts. */
export function comparisonData(e: CommitTriage): ComparisonData {
  const runs = Object.fromEntries(ROLES.map(r => [r, e.roles[r].run]));
  const keys = METRICS.filter(m => m.kind === 'metric' && ROLES.some(r => runs[r]?.metrics[m.key] !== undefined));
  const metrics = keys.map(m => {
    const v = (r: string) => runs[r]?.metrics[m.key] ?? null;
    const b = v('baseline'), h = v('human'), a = v('agent');
    return { key: m.key, label: m.label, unit: m.unit, direction: m.direction, baseline: b, human: h, agent: a,
      humanDelta: b !== null && h !== null ? improvement(m.key, b, h) : null, agentDelta: b !== null && a !== null ? improvement(m.key, b, a) : null };
  });
  const pk = e.comparison?.metric ?? metrics[0]?.key ?? null;
  const pd = pk ? metricDef(pk) : undefined;
  const attempts = ROLES.flatMap(role => [e.roles[role].run, ...e.roles[role].history].filter(Boolean).map(r => ({
    role, status: r!.status, value: pk ? r!.metrics[pk] ?? null : null, timestamp: r!.timestamp, source: r!.source })));
  const spread = ROLES.map(role => {
    const vals = attempts.filter(a => a.role === role && a.value !== null).map(a => a.value!);
    return vals.length > 1 ? { role, n: vals.length, min: Math.min(...vals), max: Math.max(...vals), mean: vals.reduce((x, y) => x + y, 0) / vals.length } : null;
  }).filter((x): x is NonNullable<typeof x> => x !== null);
  const failures = ROLES.flatMap(role => {
    const run = e.roles[role].run, c = e.roles[role].classification;
    if (!run || run.status === 'success') return [];
    const cat = c ? category(c.category) : null;
    return [{ role, status: run.status, title: cat?.title ?? run.originalStatus, cause: c?.cause ?? null, description: c?.description ?? run.error ?? '', fixability: c?.fixability ?? null, evidence: c?.evidence ?? null }];
  });
  return { view: 'comparison', commit: e.commit, subject: e.subject, model: e.model, agent: e.agent, outcome: e.outcome, verdict: e.verdict,
    comparability: e.comparability, primary: pd ? { key: pd.key, label: pd.label, unit: pd.unit } : null, metrics, failures, attempts, spread };
}

/** What the Dashboard shows for a workspace folder, from the same report the CLI writes. */
export function dashboardData(r: TriageReport): DashboardData {
  const byFix = new Map<string, number>();
  for (const s of r.summary) if (s.fixability) byFix.set(s.fixability, (byFix.get(s.fixability) ?? 0) + s.count);
  return {
    view: 'dashboard', folder: r.folder, totals: r.totals,
    byCategory: r.summary.map(s => ({ outcome: s.outcome, title: s.title, count: s.count, fixability: s.fixability })),
    byFixability: [...byFix].map(([fixability, count]) => ({ fixability, count })),
    agents: Object.entries(r.agents).map(([agent, v]) => ({ agent, win: v.win ?? 0, tie: v.tie ?? 0, loss: v.loss ?? 0, agentFailed: (v as Record<string, number>)['agent-failed'] ?? 0 })),
    scatter: r.threeWay.filter(t => t.humanImprovement !== null && t.agentImprovement !== null).map(t => ({ commit: t.commit, agent: t.agent, human: t.humanImprovement!, agent_: t.agentImprovement! })),
  };
}
