import { promises as fs, statSync } from 'node:fs';
import { Classifier, LogClassifier, type Rule } from '../core/classify';
import { buildReport, renderMarkdown } from '../core/report';
import { lineChunks } from '../platform/lineChunks';
import type { PrimaryOverride } from '../core/metrics';
import { analyzeFolder, entryJson, loadUserRules } from './analyzeFolder';
import { clean } from './terminal';

type Out = (s: string) => void;

function requireFolder(folder: string, cmd: string): void {
  let ok = false;
  try {
    ok = statSync(folder).isDirectory();
  } catch {
    /* reported below */
  }
  if (!ok) throw new Error(`${cmd}: ${folder} is not a folder`);
}

export interface AnalysisArgs {
  folder: string;
  tieBand: number;
  rules?: string;
  primaryMetric?: PrimaryOverride;
  includeIncomparable?: boolean;
  cache?: string;
}

export async function classifyCommand(a: AnalysisArgs & { json: boolean }, out: Out, err: Out): Promise<number> {
  requireFolder(a.folder, 'classify');
  const rules = loadUserRules(a.folder, a.rules, err);
  const an = await analyzeFolder(a.folder, { tieBand: a.tieBand, rules, primaryMetric: a.primaryMetric, cache: a.cache });
  for (const b of an.workspace.budgetReports)
    err(`rule ${b.rule} exceeded its time budget on ${clean(b.file)} (${b.elapsedMs} ms); user rules were stopped for that file\n`);
  if (a.json) {
    out(JSON.stringify(an.entries.map(entryJson), null, 2));
    return 0;
  }
  for (const e of an.entries) {
    const role = e.blockingRole ? e.roles[e.blockingRole] : null;
    const why = role?.classification
      ? ` — ${e.blockingRole}: ${clean(role.classification.description.split('\n')[0]).slice(0, 120)}`
      : !e.comparability.ok && e.comparison
        ? ` — not comparable: ${clean(e.comparability.reasons[0] ?? '')}`
        : '';
    const c = e.comparison;
    const verdict =
      c && e.comparability.ok
        ? `${e.verdict} on ${c.label} ${c.agentVsHuman > 0 ? '+' : ''}${c.agentVsHuman.toFixed(1)} %${c.basis === 'single' ? ' (single run)' : ` (${c.basis}, 95 % CI ${c.ci![0].toFixed(1)}…${c.ci![1].toFixed(1)} %, p ${c.p!.toFixed(3)})`}${c.mixed ? ' mixed' : ''}`
        : e.verdict;
    out(`${e.project.padEnd(7)} ${e.commit.slice(0, 8)} ${clean(e.agent ?? '-').padEnd(12)} ${e.outcome.padEnd(22)} ${verdict}${why}`);
  }
  return 0;
}

export interface LogClassification {
  file: string;
  category: string | null;
  cause: string | null;
  fixability: string | null;
  description: string | null;
  evidence: { line: number; text: string } | null;
  rule: string | null;
  metrics: Record<string, number>;
}

/** Classifies one plain log, streaming (bounded memory whatever its size). */
export async function classifyLogFile(file: string, rules: Rule[] = [], classifier = new Classifier({ userRules: rules })): Promise<LogClassification> {
  const lc = new LogClassifier(classifier, file);
  for await (const chunk of lineChunks(file)) lc.pushBytes(chunk);
  const { classification: c, metrics } = lc.result();
  if (!c) return { file, category: null, cause: null, fixability: null, description: null, evidence: null, rule: null, metrics };
  return {
    file,
    category: c.category,
    cause: c.cause,
    fixability: c.fixability,
    description: c.description,
    evidence: c.evidence ? { line: c.evidence.line, text: c.evidence.text } : null,
    rule: c.rule,
    metrics: {},
  };
}

export async function classifyLogCommand(a: { files: string[]; json: boolean; rules?: string }, out: Out, err: Out): Promise<number> {
  const rules = a.rules ? loadUserRules('.', a.rules, err) : [];
  const classifier = new Classifier({ userRules: rules });
  const results: LogClassification[] = [];
  for (const f of a.files) {
    try {
      await fs.access(f);
    } catch {
      throw new Error(`classify-log: ${f} does not exist or cannot be read`);
    }
    results.push(await classifyLogFile(f, rules, classifier));
  }
  for (const b of classifier.budgetReports)
    err(`rule ${b.rule} exceeded its time budget on ${b.file} (${b.elapsedMs} ms); user rules were stopped for that file\n`);
  if (a.json) {
    out(JSON.stringify(results, null, 2));
    return 0;
  }
  for (const r of results) {
    if (!r.category)
      out(
        `${clean(r.file)}: success — ${Object.entries(r.metrics)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
      );
    else
      out(
        `${clean(r.file)}: ${clean(r.category)}${r.cause ? `/${clean(r.cause)}` : ''}${r.evidence ? ` at line ${r.evidence.line}: ${clean(r.evidence.text.slice(0, 160))}` : ''}`,
      );
  }
  return 0;
}

export async function reportCommand(a: AnalysisArgs & { format: 'md' | 'json'; out?: string }, out: Out, err: Out): Promise<number> {
  requireFolder(a.folder, 'report');
  const rules = loadUserRules(a.folder, a.rules, err);
  const an = await analyzeFolder(a.folder, { tieBand: a.tieBand, rules, primaryMetric: a.primaryMetric, cache: a.cache });
  const report = buildReport(an.entries, a.folder, { tieBand: a.tieBand, includeIncomparable: a.includeIncomparable });
  const text = a.format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderMarkdown(report);
  if (a.out) {
    await fs.writeFile(a.out, text);
    err(`report written to ${a.out}\n`);
  } else out(text.trimEnd());
  return 0;
}
