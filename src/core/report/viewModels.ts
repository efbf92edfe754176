import { formatWhen } from './when';
import { category } from '../classify/taxonomy';
import { fixabilityWords } from '../classify/fixabilityWords';
import type { CommitTriage } from '../compare/triage';
import { relativeChange } from '../compare/stats';
import { suggestedRepeats } from '../compare/repeats';
import { wantsMoreRuns } from '../compare/verdict';
import { METRICS, metricDef } from '../metrics';
import { ROLES } from '../model';
import type { ComparisonData, DashboardData, VerdictRow } from './viewTypes';
import type { TriageReport } from './report';
import type { VerdictCounts } from '../compare/triage';

/** What the Comparison webview shows for one commit: every metric × role with its verdict, failures with all findings, every attempt. */
export function comparisonData(e: CommitTriage, tieBand: number): ComparisonData {
  const c = e.comparison;
  const runs = Object.fromEntries(ROLES.map(r => [r, e.roles[r].run]));
  const compared = new Map((c?.metrics ?? []).map(m => [m.key, m]));
  const keys = METRICS.filter(m => m.kind === 'metric' && (compared.has(m.key) || ROLES.some(r => runs[r]?.metrics[m.key] !== undefined)));
  const metrics = keys
    .map(m => {
      const cm = compared.get(m.key);
      const v = (r: string) => runs[r]?.metrics[m.key] ?? null;
      const b = cm ? cm.baseline : v('baseline'),
        h = cm ? cm.human : v('human'),
        a = cm ? cm.agent : v('agent');
      const dir = m.direction === 'none' ? null : m.direction;
      const evidence = ROLES.map(r => {
        const s = runs[r]?.metricSources[m.key];
        return s ? `${r}: ${s.evidence} (${s.field})` : null;
      })
        .filter(Boolean)
        .join('; ');
      return {
        key: m.key,
        label: m.label,
        unit: m.unit,
        direction: m.direction,
        baseline: b,
        human: h,
        agent: a,
        humanDelta: dir && b !== null && h !== null ? relativeChange(b, h, dir) : null,
        agentDelta: dir && b !== null && a !== null ? relativeChange(b, a, dir) : null,
        agentVsHuman: cm?.agentVsHuman ?? null,
        ci: cm?.ci ?? null,
        p: cm?.p ?? null,
        basis: cm?.basis ?? null,
        verdict: cm?.verdict ?? null,
        n: cm?.n ?? null,
        headline: cm?.headline ?? false,
        primary: c?.metric === m.key,
        unitEvidence: evidence,
      };
    })
    .sort(
      (x, y) =>
        Number(y.primary) - Number(x.primary) || Number(y.headline) - Number(x.headline) || Number(!!compared.get(y.key)) - Number(!!compared.get(x.key)),
    );
  const pk = c?.metric ?? metrics[0]?.key ?? null;
  const counted = new Set(ROLES.flatMap(r => e.roles[r].attempts.map(x => x.id)));
  const attempts = ROLES.flatMap(role =>
    [e.roles[role].run, ...e.roles[role].history].filter(Boolean).map(r => ({
      role,
      status: r!.status,
      value: pk ? (r!.metrics[pk] ?? null) : null,
      timestamp: r!.timestamp,
      when: formatWhen(r!.timestamp),
      source: r!.source,
      counted: counted.has(r!.id),
    })),
  );
  const failures = ROLES.flatMap(role => {
    const run = e.roles[role].run,
      cl = e.roles[role].classification;
    if (!run || (run.status === 'success' && !cl)) return [];
    return [
      {
        role,
        status: run.status,
        title: cl ? category(cl.category).title : run.originalStatus,
        cause: cl?.cause ?? null,
        description: cl?.description ?? run.error ?? '',
        // In words (`needs more GPUs`), never the raw id.
        fixability: cl?.fixability ? fixabilityWords(cl.fixability) : null,
        evidence: cl?.evidence ?? null,
        findings: (cl?.findings ?? []).map(f => ({
          category: f.category,
          title: category(f.category).title,
          cause: f.cause,
          description: f.description,
          strength: f.strength,
          evidence: f.evidence,
        })),
      },
    ];
  });
  const dataProblems = ROLES.flatMap(role => {
    const r = runs[role];
    if (!r) return [];
    return [
      ...r.problems.map(p => ({ role, file: r.provenance.file, field: p.field, message: p.message })),
      ...(e.roles[role].classification?.notes ?? []).map(n => ({ role, file: r.provenance.file, field: 'logs', message: n })),
    ];
  });
  return {
    view: 'comparison',
    commit: e.commit,
    subject: e.subject,
    model: e.model,
    agent: e.agent,
    project: e.project,
    outcome: e.outcome,
    verdict: e.verdict,
    headline: c
      ? {
          key: c.metric,
          label: c.label,
          unit: c.unit,
          verdict: c.verdict,
          basis: c.basis,
          agentVsHuman: c.agentVsHuman,
          ci: c.ci,
          p: c.p,
          mixed: c.mixed,
          note: c.note,
        }
      : null,
    comparability: e.comparability,
    pair: e.pair,
    baselineNote: e.baselineNote,
    chosen: e.chosen,
    tieBand,
    metrics,
    failures,
    attempts,
    runMore:
      c && e.pair.ok && wantsMoreRuns(c.verdict, c.basis)
        ? suggestedRepeats({ human: e.roles.human.attempts.length, agent: e.roles.agent.attempts.length })
        : null,
    conflicts: e.conflicts,
    dataProblems,
  };
}

const row = (key: string, label: string, v: VerdictCounts): VerdictRow => ({
  key,
  label,
  win: v.win,
  tie: v.tie,
  loss: v.loss,
  unknown: v.unknown,
  agentFailed: v['agent-failed'],
  mixed: v.mixed,
  single: v.single,
});

/** What the Dashboard shows for a workspace folder, per project, from the same report the CLI writes. */
export function dashboardData(r: TriageReport): DashboardData {
  return {
    view: 'dashboard',
    folder: r.folder,
    includeIncomparable: r.includeIncomparable,
    projects: r.projects.map(p => {
      // The same count the tree's Group By fixability shows: each blocked entry by its own classification's fixability.
      const byFix = new Map(Object.entries(p.fixability).sort(([, a], [, b]) => b - a));
      return {
        project: p.project,
        totals: p.totals,
        byCategory: p.summary.map(s => ({
          outcome: s.outcome,
          title: s.title,
          count: s.count,
          fixability: s.fixability ? fixabilityWords(s.fixability) : null,
        })),
        byFixability: [...byFix].map(([fixability, count]) => ({ fixability, title: fixabilityWords(fixability), count })),
        agents: Object.entries(p.agents).map(([a, v]) => row(a, a, v)),
        metrics: Object.entries(p.metrics).map(([k, v]) => row(k, `${metricDef(k)?.label ?? k} (${metricDef(k)?.unit ?? '?'})`, v)),
        leftOut: p.leftOut,
        incomparable: p.incomparable.map(i => ({ commit: i.commit, agent: i.agent, reasons: i.reasons })),
        scatter: p.threeWay
          .filter(t => t.humanImprovement !== null && t.agentImprovement !== null)
          .map(t => ({ commit: t.commit, agent: t.agent, human: t.humanImprovement!, agent_: t.agentImprovement!, comparable: t.comparable })),
      };
    }),
  };
}
