import type { BenchmarkMode, FailedRequests, SchemaId } from '../../../model';
import { draft, type DetectContext, type RunDraft } from '../common';
import type { Reading } from './reader';

export interface StandaloneInit {
  mode: BenchmarkMode;
  model: string | null;
  timestamp: string | null;
  samples?: Record<string, number[]>;
  failed: FailedRequests | null;
  /** Successful requests, where the file counts them: 0 with failures means every request failed. */
  completed: number | null;
  /** The tool and form that wrote it (`vllm bench serve`, `benchmark_serving.py`, `sglang.bench_serving` …): the run's source. */
  tool: string;
  /** Where in the file this run is, for files with several (`line 3`, `benchmarks.2`). */
  pointer?: string;
  durationS?: number | null;
  /** Why the tool did not finish, when the file says (AIPerf's `was_cancelled`). */
  stopped?: string | null;
}

/**
 * A run draft of a standalone result file. Such files name no commit and no role: the draft is
 * marked unattributed, and the scan gives it its identity from a manifest or its path (never a
 * guess). A result whose every request failed is a failed run with the first error as its
 * error, so the classifier explains it; fewer failures leave it measured, with the finding.
 */
export function standaloneDraft(ctx: DetectContext, schema: SchemaId, r: Reading, init: StandaloneInit): RunDraft {
  let hasMetrics = false;
  for (const _ in r.metrics.metrics) {
    hasMetrics = true;
    break;
  }
  const f = init.failed;
  const allFailed = !!f && init.completed === 0;
  const status = init.stopped || allFailed || !hasMetrics ? 'failed' : 'success';
  const error = init.stopped
    ? init.stopped
    : allFailed
      ? `All ${f!.failed} requests failed (${f!.field})${f!.firstError ? `; first error: ${f!.firstError}` : ''}`
      : !hasMetrics
        ? `the ${init.tool} result holds no metrics`
        : null;
  const d = draft({
    commit: '',
    role: 'human',
    source: init.tool,
    schema,
    pointer: init.pointer ?? '(document)',
    ctx,
    originalStatus: f ? `${init.completed ?? '?'} completed, ${f.failed} failed` : status === 'success' ? 'completed' : 'no metrics',
    status,
  });
  // Field by field (no spreads): thousands of drafts a scan, each a handful of plain stores. A
  // result whose every request failed measured nothing: the zeros its tool wrote are not figures.
  d.metrics = allFailed ? {} : r.metrics.metrics;
  d.counts = r.metrics.counts;
  d.metricFields = allFailed ? [] : r.metrics.fields;
  d.problems = r.metrics.problems;
  d.error = error;
  d.errorField = error ? (init.stopped ? 'was_cancelled' : allFailed ? f!.field : null) : null;
  d.model = init.model;
  d.benchmarkMode = init.mode;
  d.timestamp = init.timestamp;
  d.durationS = init.durationS ?? r.metrics.counts.benchmark_duration_s ?? null;
  if (init.samples) d.samples = init.samples;
  for (const p of r.problems) d.problems.push(p);
  if (f && !allFailed)
    d.problems.push({
      field: f.field,
      message: `${f.failed}${f.total !== null ? ` of ${f.total}` : ''} requests failed${f.firstError ? ` (first error: ${f.firstError})` : ''}: not a clean measurement`,
    });
  // Failed requests send no tokens: the input count then says nothing of the workload (the finding does).
  if (f) delete r.workload.input_tokens;
  d.unattributed = true;
  d.multi = init.pointer !== undefined;
  d.workload = r.workload as Record<string, { value: string; from: string }>;
  if (f) d.failedRequests = f;
  for (const _ in r.labels) {
    d.labels = r.labels;
    break;
  }
  return d;
}
