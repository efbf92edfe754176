import { promises as fs, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { scan, type ScanResult } from '../core/ingest';
import { Classifier, classifyRuns, parseRulesFile, type Classification, type Rule } from '../core/classify';
import { triage, type CommitTriage } from '../core/compare';
import { nodeFileSource } from '../platform/nodeFileSource';

export interface Analysis { scan: ScanResult; classifications: Map<string, Classification>; entries: CommitTriage[]; classifier: Classifier }

/** User rules from `--rules` or `<folder>/.bench-triage/rules.json`; problems go to stderr, loading goes on. */
export function loadUserRules(folder: string, explicit: string | undefined, err: (s: string) => void): Rule[] {
  const file = explicit ?? path.join(folder, '.bench-triage', 'rules.json');
  if (!existsSync(file)) { if (explicit) throw new Error(`rules file ${explicit} does not exist`); return []; }
  const { rules, problems } = parseRulesFile(readFileSync(file, 'utf8'));
  for (const p of problems) err(`${file}: ${p.severity}: ${p.ruleId ? `rule ${p.ruleId}` : p.index !== null ? `rule #${p.index}` : 'file'}${p.field ? ` (${p.field})` : ''}: ${p.message}\n`);
  return rules;
}

export async function analyzeFolder(folder: string, opts: { tieBand?: number; rules?: Rule[] } = {}): Promise<Analysis> {
  const result = await scan(nodeFileSource(folder));
  const classifier = new Classifier({ userRules: opts.rules });
  const classifications = await classifyRuns(result, p => fs.readFile(path.join(folder, p), 'utf8'), classifier);
  const entries = triage(result.runs, classifications, { tieBand: opts.tieBand, commits: new Map(result.commits.map(c => [c.hash, c])) });
  return { scan: result, classifications, entries, classifier };
}

/** The `classify --json` entry shape (issue 3). */
export function entryJson(e: CommitTriage) {
  const roles: Record<string, unknown> = {};
  for (const [role, v] of Object.entries(e.roles)) {
    if (!v.run) continue;
    const c = v.classification;
    roles[role] = {
      status: v.run.status, originalStatus: v.run.originalStatus, source: v.run.source, file: v.run.provenance.file,
      category: c?.category ?? null, cause: c?.cause ?? null, fixability: c?.fixability ?? null,
      evidence: c?.evidence ?? null, rule: c?.rule ?? null, description: c?.description ?? null,
      metrics: v.run.metrics, attempts: v.history.length + 1,
    };
  }
  return { commit: e.commit, agent: e.agent, subject: e.subject, outcome: e.outcome, roles, verdict: e.verdict, comparison: e.comparison, comparability: e.comparability };
}
