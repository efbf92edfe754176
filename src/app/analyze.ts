import { scan, type FileSource, type ScanOptions, type ScanResult } from '../core/ingest';
import { applyPatchTruth, Classifier, classifyRuns, type Classification, type Rule } from '../core/classify';
import { triage, type CommitTriage } from '../core/compare';
import type { PrimaryOverride } from '../core/metrics';

export interface AnalyzeOptions {
  tieBand?: number;
  rules?: Rule[];
  primaryMetric?: PrimaryOverride;
  signal?: AbortSignal;
  onScanProgress?: ScanOptions['onProgress'];
  onClassify?(failedRuns: number): void;
}

export interface Analysis { scan: ScanResult; classifications: Map<string, Classification>; entries: CommitTriage[]; classifier: Classifier }

/**
 * scan → classify → patch truth → triage: the one pipeline both front ends run on a folder
 * (the CLI on Node's fs, the extension on its workspace folders).
 */
export async function analyze(source: FileSource, opts: AnalyzeOptions = {}): Promise<Analysis> {
  const result = await scan(source, { signal: opts.signal, onProgress: opts.onScanProgress });
  opts.onClassify?.(result.runs.filter(r => r.status !== 'success').length);
  const classifier = new Classifier({ userRules: opts.rules });
  const classifications = await classifyRuns(result, (p, o) => source.readText(p, o), classifier, opts.signal);
  const runs = applyPatchTruth(result.runs, classifications);
  const measured: ScanResult = { ...result, runs };
  const entries = triage(runs, classifications, {
    tieBand: opts.tieBand, primaryMetric: opts.primaryMetric, conflicts: result.conflicts, commits: new Map(result.commits.map(c => [c.hash, c])),
  });
  return { scan: measured, classifications, entries, classifier };
}
