import { dict } from '../core/model';
import { existsSync } from 'node:fs';
import { readTextBoundedSync } from '../platform/boundedRead';
import * as path from 'node:path';
import { MAX_RULES_BYTES, parseRulesFile, type Label, type Rule } from '../core/classify';
import type { CommitTriage } from '../core/compare';
import type { PrimaryOverride } from '../core/metrics';
import { analyze, type Analysis } from '../app/folderAnalysis';
import { nodeFileSource } from '../platform/nodeFileSource';
import type { FileSource } from '../core/ingest';
import { fileIndexStore } from '../app/indexStore';
import { loadLabels } from './labelsFile';

/** User rules from `--rules` or `<folder>/.bench-triage/rules.json`; problems go to stderr, loading goes on. */
export function loadUserRules(folder: string, explicit: string | undefined, err: (s: string) => void): Rule[] {
  const file = explicit ?? path.join(folder, '.bench-triage', 'rules.json');
  if (!existsSync(file)) {
    if (explicit) throw new Error(`rules file ${explicit} does not exist`);
    return [];
  }
  // A named file may be a link the user made (followed); the folder's own file is not followed.
  const text = readTextBoundedSync(file, { maxBytes: MAX_RULES_BYTES, follow: !!explicit, what: 'the rules file' });
  const { rules, problems } = parseRulesFile(text);
  for (const p of problems)
    err(
      `${file}: ${p.severity}: ${p.ruleId ? `rule ${p.ruleId}` : p.index !== null ? `rule #${p.index}` : 'file'}${p.field ? ` (${p.field})` : ''}: ${p.message}\n`,
    );
  return rules;
}

/** A folder through the shared Workspace; with `cache`, its persistent index lives there (`--cache DIR`). */
export function analyzeFolder(
  folder: string,
  opts: {
    tieBand?: number;
    rules?: Rule[];
    primaryMetric?: PrimaryOverride;
    cache?: string;
    allowFailedRequests?: boolean;
    labels?: Label[];
    /** The folder as already listed (a saved answer's listing); else Node's fs. */
    source?: FileSource;
  } = {},
): Promise<Analysis> {
  const abs = path.resolve(folder);
  // The folder's labels apply unless given (their problems go to stderr).
  const labels = opts.labels ?? loadLabels(folder, s => process.stderr.write(s));
  return analyze(opts.source ?? nodeFileSource(abs), {
    ...opts,
    labels,
    folder: abs,
    index: opts.cache ? fileIndexStore(path.resolve(opts.cache), abs) : null,
  });
}

/** The `classify --json` entry shape (issues 3 and 11). */
export function entryJson(e: CommitTriage) {
  const roles: Record<string, unknown> = dict();
  for (const [role, v] of Object.entries(e.roles)) {
    if (!v.run) continue;
    const c = v.classification;
    roles[role] = {
      status: v.run.status,
      originalStatus: v.run.originalStatus,
      source: v.run.source,
      file: v.run.provenance.file,
      category: c?.category ?? null,
      cause: c?.cause ?? null,
      fixability: c?.fixability ?? null,
      evidence: c?.evidence ?? null,
      rule: c?.rule ?? null,
      description: c?.description ?? null,
      strength: c?.strength ?? null,
      findings: (c?.findings ?? []).map(f => ({
        category: f.category,
        cause: f.cause,
        evidence: f.evidence,
        rule: f.rule,
        strength: f.strength,
        description: f.description,
      })),
      metrics: v.run.metrics,
      units: Object.fromEntries(Object.entries(v.run.metricSources).map(([k, s]) => [k, s.evidence])),
      attempts: v.history.length + 1,
      comparableAttempts: v.attempts.length,
      problems: v.run.problems,
      notes: c?.notes ?? [],
    };
  }
  const c = e.comparison;
  return {
    commit: e.commit,
    agent: e.agent,
    project: e.project,
    subject: e.subject,
    model: e.model,
    models: e.models,
    gpuConfig: e.gpuConfig,
    mode: e.mode,
    outcome: e.outcome,
    roles,
    verdict: e.verdict,
    comparison: c
      ? {
          metric: c.metric,
          unit: c.unit,
          verdict: c.verdict,
          basis: c.basis,
          ci: c.basis === 'single' ? null : c.ci,
          p: c.p,
          baseline: c.baseline,
          human: c.human,
          agent: c.agent,
          agentVsHuman: c.agentVsHuman,
          humanImprovement: c.humanImprovement,
          agentImprovement: c.agentImprovement,
          mixed: c.mixed,
          headlineMetrics: c.headlineMetrics,
          note: c.note,
          metrics: c.metrics.map(m => ({
            key: m.key,
            unit: m.unit,
            direction: m.direction,
            baseline: m.baseline,
            human: m.human,
            agent: m.agent,
            agentVsHuman: m.agentVsHuman,
            humanImprovement: m.humanImprovement,
            agentImprovement: m.agentImprovement,
            verdict: m.verdict,
            basis: m.basis,
            ci: m.ci,
            p: m.p,
            n: m.n,
            headline: m.headline,
          })),
        }
      : null,
    comparability: e.comparability,
    pair: e.pair,
    baselineNote: e.baselineNote,
    chosen: e.chosen,
    conflicts: e.conflicts,
  };
}
