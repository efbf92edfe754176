import { pValueText } from './pValue';
import type { Role } from '../model';
import { CATEGORIES, FIXABILITIES, category, type Finding, type Fixability } from '../classify';
import { aggregate, byProject, type CommitTriage, type VerdictCounts } from '../compare/triage';
import { MEASURED_OUTCOMES, outcomeTitle } from '../compare/outcomes';
import { shownVerdict, type Basis, type Verdict } from '../compare/verdict';
import { metricDef, UNKNOWN_UNIT } from '../metrics';
import { mdLink, mdText } from './markdown';

export interface ReportOptions {
  tieBand: number;
  /** Count incomparable commits in the aggregates and list them in the 3-way table (marked). */
  includeIncomparable?: boolean;
  now?: Date;
}

export interface ThreeWayRow {
  commit: string;
  agent: string | null;
  subject: string | null;
  prUrl: string | null;
  model: string | null;
  gpus: string | null;
  version: string | null;
  metric: string;
  label: string;
  unit: string;
  baseline: number | null;
  human: number;
  agentValue: number;
  humanImprovement: number | null;
  agentImprovement: number | null;
  agentVsHuman: number;
  basis: Basis;
  ci: [number, number] | null;
  p: number | null;
  verdict: Verdict;
  mixed: boolean;
  comparable: boolean;
  /** Why the baseline columns are empty although agent and human are compared. */
  baselineNote: string | null;
  reasons: string[];
  /** What the comparison holds with a caution (pooled attempts with different labels, a command not what ran). */
  notes: string[];
}

export interface ProjectReport {
  project: string;
  totals: { entries: number; commits: number; complete: number; agentVsHuman: number; incomparable: number; partial: number; failed: number };
  summary: Array<{ outcome: string; title: string; count: number; fixability: Fixability | null; description: string }>;
  /** Comparable commits (and, on request, incomparable ones, marked). */
  threeWay: ThreeWayRow[];
  /** Measured but not comparable: left out of every count, with the reasons. */
  incomparable: Array<{ commit: string; agent: string | null; subject: string | null; reasons: string[] }>;
  failures: Array<{
    commit: string;
    agent: string | null;
    subject: string | null;
    outcome: string;
    role: Role;
    cause: string | null;
    description: string;
    rule: string | null;
    evidence: { file: string; field: string | null; line: number; text: string } | null;
    findings: Finding[];
  }>;
  conflicts: Array<{ commit: string; message: string }>;
  actionPlan: Record<Fixability, string[]>;
  agents: Record<string, VerdictCounts>;
  metrics: Record<string, VerdictCounts>;
  /** Blocked entries by the fixability of what blocks them (the classification's own, as the tree groups them). */
  fixability: Record<string, number>;
  leftOut: number;
}

export interface TriageReport {
  generatedAt: string;
  folder: string;
  tieBand: number;
  includeIncomparable: boolean;
  projects: ProjectReport[];
}

function projectReport(project: string, entries: readonly CommitTriage[], includeIncomparable: boolean): ProjectReport {
  const agg = aggregate(entries, includeIncomparable);
  const order = [...Object.keys(MEASURED_OUTCOMES), ...CATEGORIES.map(c => c.id)];
  const summary = Object.entries(agg.byOutcome)
    .sort(([a, x], [b, y]) => y - x || order.indexOf(a) - order.indexOf(b))
    .map(([outcome, count]) => ({
      outcome,
      title: outcomeTitle(outcome),
      count,
      fixability: outcome in MEASURED_OUTCOMES ? null : category(outcome).fixability,
      description: MEASURED_OUTCOMES[outcome]?.description ?? category(outcome).description,
    }));
  const threeWay = entries
    // Agent vs human where those two are comparable (the baseline columns only where it is too); incomparable ones on request, marked.
    .filter(e => e.comparison && (e.outcome === 'complete' || e.outcome === 'agent-vs-human' || (includeIncomparable && e.outcome === 'incomparable')))
    .map((e): ThreeWayRow => {
      const c = e.comparison!;
      return {
        commit: e.commit,
        agent: e.agent,
        subject: e.subject,
        prUrl: e.prUrl,
        model: e.model,
        gpus: e.gpuConfig,
        version: e.version,
        metric: c.metric,
        label: c.label,
        unit: c.unit,
        baseline: c.baseline,
        human: c.human,
        agentValue: c.agent,
        humanImprovement: c.humanImprovement,
        agentImprovement: c.agentImprovement,
        agentVsHuman: c.agentVsHuman,
        basis: c.basis,
        ci: c.ci,
        p: c.p,
        verdict: c.verdict,
        mixed: c.mixed,
        comparable: e.pair.ok,
        baselineNote: e.baselineNote,
        reasons: e.pair.ok ? (e.baselineNote ? [`baseline not comparable: ${e.baselineNote}`] : []) : e.pair.reasons,
        notes: e.comparability.notes ?? [],
      };
    });
  // Exactly the entries the summary counts as incomparable (one count per class, equal to its rows).
  const incomparable = entries
    .filter(e => e.outcome === 'incomparable')
    .map(e => ({ commit: e.commit, agent: e.agent, subject: e.subject, reasons: e.pair.reasons.length ? e.pair.reasons : e.comparability.reasons }));
  const failures = entries
    .filter(e => e.blockingRole)
    .map(e => {
      const c = e.roles[e.blockingRole!].classification;
      return {
        commit: e.commit,
        agent: e.agent,
        subject: e.subject,
        outcome: e.outcome,
        role: e.blockingRole!,
        cause: c?.cause ?? null,
        description: c?.description ?? '',
        rule: c?.rule ?? null,
        evidence: c?.evidence ?? null,
        findings: c?.findings ?? [],
      };
    });
  const actionPlan = Object.fromEntries(FIXABILITIES.map(f => [f, [] as string[]])) as Record<Fixability, string[]>;
  for (const e of entries) {
    if (!e.blockingRole) continue;
    const fix = e.roles[e.blockingRole].classification?.fixability ?? category(e.outcome).fixability;
    if (!actionPlan[fix].includes(e.commit)) actionPlan[fix].push(e.commit);
  }
  const conflicts = entries
    .flatMap(e => e.conflicts.map(message => ({ commit: e.commit, message })))
    .filter((c, i, all) => all.findIndex(x => x.message === c.message) === i);
  return {
    project,
    totals: {
      entries: entries.length,
      commits: new Set(entries.map(e => e.commit)).size,
      complete: agg.byOutcome.complete ?? 0,
      agentVsHuman: agg.byOutcome['agent-vs-human'] ?? 0,
      incomparable: agg.byOutcome.incomparable ?? 0,
      partial: agg.byOutcome.partial ?? 0,
      failed: failures.length,
    },
    summary,
    threeWay,
    incomparable,
    failures,
    conflicts,
    actionPlan,
    agents: agg.byAgent,
    metrics: agg.byMetric,
    fixability: agg.byFixability,
    leftOut: agg.leftOut,
  };
}

export function buildReport(entries: readonly CommitTriage[], folder: string, opts: ReportOptions): TriageReport {
  const include = opts.includeIncomparable ?? false;
  return {
    generatedAt: (opts.now ?? new Date()).toISOString(),
    folder,
    tieBand: opts.tieBand,
    includeIncomparable: include,
    projects: byProject(entries).map(([p, es]) => projectReport(p, es, include)),
  };
}

const num = (v: number | null, digits = 2) => (v === null ? '—' : Number.isInteger(v) ? String(v) : v.toFixed(digits));
const pct = (v: number | null) => (v === null ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(1)} %`);
const ci = (c: [number, number] | null) => (c ? `[${c[0].toFixed(1)}, ${c[1].toFixed(1)}] %` : '—');
const unitOf = (key: string) => {
  const u = metricDef(key)?.unit;
  return u && u !== UNKNOWN_UNIT ? ` (${u})` : u === UNKNOWN_UNIT ? ` (${UNKNOWN_UNIT})` : '';
};

const FIX_TITLES: Record<Fixability, string> = {
  retry: 'Retry',
  recipe: 'Rerun with a recipe',
  rebuild: 'Rebuild the image or wheel',
  config: 'Change the benchmark configuration',
  'more-gpus': 'Needs more GPUs',
  unfixable: 'Not fixable here',
  investigate: 'Investigate',
  dataset: 'Fix the dataset',
  agent: 'Agent lost (valid outcome)',
};

function verdictTable(out: string[], caption: string, key: string, rows: Record<string, VerdictCounts>, label: (k: string) => string): void {
  out.push(
    `### ${caption}`,
    '',
    `| ${key} | win | tie | loss | of these on a single run (hints) | unknown (needs more runs) | agent failed | mixed |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  const keys = Object.keys(rows);
  if (!keys.length) out.push('| — | | | | | | | |');
  for (const k of keys) {
    const v = rows[k];
    out.push(`| ${label(k)} | ${v.win} | ${v.tie} | ${v.loss} | ${v.single} | ${v.unknown} | ${v['agent-failed']} | ${v.mixed} |`);
  }
  out.push('');
}

export function renderMarkdown(r: TriageReport): string {
  const out: string[] = [];
  out.push(
    `# Triage report — ${mdText(r.folder)}`,
    '',
    `Generated ${r.generatedAt} by Bench Triage. Tie band ±${r.tieBand} %. ` +
      'Verdicts with repeats or per-request samples need a 95 % bootstrap interval outside the tie band and a Mann–Whitney p < 0.05; a single run is judged by the tie band alone (noise unknown). ' +
      (r.includeIncomparable
        ? 'Incomparable commits are **included** in the counts on request.'
        : 'Incomparable commits are left out of every count and table but their own section.'),
    '',
  );
  if (!r.projects.length) out.push('No results.', '');
  for (const p of r.projects) {
    const t = p.totals;
    out.push(
      `## ${mdText(p.project)}`,
      '',
      `${t.entries} commit × agent entries over ${t.commits} commits: ${t.complete} complete, ${t.agentVsHuman} agent vs human only (baseline not comparable), ${t.incomparable} incomparable, ${t.partial} partial, ${t.failed} failed.`,
      '',
    );
    out.push('### Summary by outcome', '', '| outcome | count | fixability | what it means |', '|---|---:|---|---|');
    for (const s of p.summary) out.push(`| ${mdText(s.title)} (${mdText(s.outcome)}) | ${s.count} | ${s.fixability ?? '—'} | ${mdText(s.description)} |`);
    out.push('', '### 3-way comparisons', '');
    if (!p.threeWay.length) out.push('None.', '');
    else {
      out.push(
        '| commit | PR title | model | GPUs | version | agent | headline metric | baseline | human | agent | human vs baseline | agent vs human | basis | 95 % CI | p | verdict |',
        '|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|---|---|---:|---|',
      );
      for (const w of p.threeWay) {
        const verdict = `${shownVerdict(w.verdict, w.basis)}${w.mixed ? ' (mixed)' : ''}${w.comparable ? '' : ' — not comparable'}${w.baselineNote ? ' — baseline not comparable' : ''}`;
        out.push(
          `| ${w.commit.slice(0, 8)} | ${mdLink(w.subject ?? '', w.prUrl)} | ${mdText(w.model ?? '—')} | ${mdText(w.gpus ?? '—')} | ${mdText(w.version ?? '—')} | ${mdText(w.agent ?? '—')} | ${mdText(w.label)}${mdText(unitOf(w.metric))} | ${num(w.baseline)} | ${num(w.human)} | ${num(w.agentValue)} | ${pct(w.humanImprovement)} | ${pct(w.agentVsHuman)} | ${w.basis === 'single' ? 'single run (noise unknown)' : w.basis} | ${ci(w.ci)} | ${pValueText(w.p)} | ${mdText(verdict)} |`,
        );
      }
      out.push('');
      const noted = p.threeWay.filter(w => w.notes.length);
      if (noted.length) {
        out.push('Notes on these comparisons:', '', '| commit | agent | note |', '|---|---|---|');
        for (const w of noted) out.push(`| ${w.commit.slice(0, 8)} | ${mdText(w.agent ?? '—')} | ${mdText(w.notes.join('; '), 600)} |`);
        out.push('');
      }
    }
    verdictTable(out, 'Verdicts per agent', 'agent', p.agents, mdText);
    verdictTable(out, 'Verdicts per headline metric', 'metric', p.metrics, k => `${mdText(metricDef(k)?.label ?? k)}${mdText(unitOf(k))}`);
    if (p.leftOut) out.push(`${p.leftOut} measured ${p.leftOut === 1 ? 'entry is' : 'entries are'} not comparable and left out of these counts.`, '');
    out.push('### Not comparable', '');
    if (!p.incomparable.length) out.push('None.', '');
    else {
      out.push('| commit | PR title | agent | why not |', '|---|---|---|---|');
      for (const i of p.incomparable)
        out.push(`| ${i.commit.slice(0, 8)} | ${mdText(i.subject ?? '—')} | ${mdText(i.agent ?? '—')} | ${mdText(i.reasons.join('; '), 600)} |`);
      out.push('');
    }
    out.push('### Failures', '', '| commit | PR title | agent | outcome | role | cause | evidence | other findings |', '|---|---|---|---|---|---|---|---|');
    for (const f of p.failures) {
      const ev = f.evidence
        ? `${mdText(f.evidence.file)}${f.evidence.field ? ` (${mdText(f.evidence.field)})` : ''}, line ${f.evidence.line}: ${mdText(f.evidence.text, 160)}`
        : mdText(f.description, 160);
      const more = f.findings
        .slice(1)
        .map(x => `${x.category}${x.cause ? `/${x.cause}` : ''}`)
        .join(', ');
      out.push(
        `| ${f.commit.slice(0, 8)} | ${mdText(f.subject ?? '—', 80)} | ${mdText(f.agent ?? '—')} | ${mdText(f.outcome)} | ${f.role} | ${mdText(f.cause ?? '—')} | ${ev} | ${mdText(more || '—')} |`,
      );
    }
    out.push('');
    if (p.conflicts.length) {
      out.push('### Data conflicts', '');
      for (const c of p.conflicts) out.push(`- ${mdText(c.message, 600)}`);
      out.push('');
    }
    out.push('### Action plan', '');
    for (const fix of FIXABILITIES) {
      const commits = p.actionPlan[fix];
      if (commits.length) out.push(`#### ${FIX_TITLES[fix]} (${commits.length})`, '', commits.map(c => c.slice(0, 8)).join(', '), '');
    }
  }
  return out.join('\n') + '\n';
}
