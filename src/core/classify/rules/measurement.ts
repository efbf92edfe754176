import type { RuleSpec } from '../ruleSchema';
import { S, any } from './helpers';

/** Measurement: the benchmark ran and printed nothing usable. */
export const MEASUREMENT_RULES: RuleSpec[] = [
  {
    // vLLM #24411 (2025-09) left benchmarks/benchmark_{serving,latency,throughput}.py as stubs that print this and exit 1.
    id: 'no-metrics.script-moved',
    category: 'no-metrics',
    cause: 'benchmark-script-moved',
    fixability: 'config',
    strength: S,
    description: 'This vLLM has only a stub of the old benchmark script ({1}): run `vllm bench` (Rerun translates the perf command to the CLI)',
    indications: [any('(DEPRECATED: This script has been moved to the vLLM CLI\\.?)')],
  },
  {
    // A vLLM older than the `vllm bench` CLI (the CLI arrived in the 0.8 line, vLLM #13993).
    id: 'no-metrics.bench-cli-missing',
    category: 'no-metrics',
    cause: 'bench-cli-missing',
    fixability: 'config',
    strength: S,
    description: 'This vLLM predates `vllm bench` ({1}): run benchmarks/benchmark_*.py (Rerun translates the perf command to the old script)',
    indications: [
      any("(error: argument (?:subparser|\\{[\\w,-]{1,120}\\}): invalid choice: '?bench'?[^\\n]{0,120})"),
      any("(No module named '?vllm\\.benchmarks(?:\\.\\w+)?'?)"),
      any("(No module named '?vllm\\.entrypoints\\.cli(?:\\.\\w+)?'?)"),
    ],
  },
  {
    // The 2024 client crashed summarising requests that produced no tokens (vllm #3397 / #3400).
    id: 'no-metrics.client-summary-crash',
    category: 'no-metrics',
    cause: 'client-summary-crash',
    fixability: 'config',
    strength: S,
    description: 'The benchmark client crashed summarising its requests ({1}): requests that produced no tokens, or none that succeeded',
    indications: [any('^(?:\\S+\\s)?(ZeroDivisionError: (?:float )?division by zero)\\s*$')],
  },
  {
    id: 'no-metrics.bad-arguments',
    category: 'no-metrics',
    cause: 'bad-arguments',
    strength: S,
    description: 'The benchmark rejected its arguments: {1}',
    indications: [
      any('(error: unrecognized arguments: [^\\n]{0,120})'),
      any('(error: the following arguments are required: [^\\n]{0,80})'),
      any("(error: argument --?[\\w-]+: (?!invalid int value: '(?:BS|INPUT_LEN|OUTPUT_LEN|NUM_PROMPTS|TP|BATCH_SIZE|MODEL)')[^\\n]{0,80})"),
      any('(dataset_path must be provided[^\\n]{0,40})'),
    ],
  },
  {
    id: 'no-metrics.dataset-missing',
    category: 'no-metrics',
    cause: 'dataset-missing',
    strength: S,
    description: 'Dataset file missing: {1}',
    indications: [any("(No such file or directory: '[^']*(?:sharegpt|ShareGPT|sonnet|dataset)[^']*')")],
  },
  {
    id: 'no-metrics.test-target',
    category: 'no-metrics',
    cause: 'test-target-missing',
    strength: S,
    description: 'The generated perf test targets code this commit does not have: {1}',
    indications: [
      any('("target_resolved": false)'),
      // vLLM's own modules only: a third-party module without an attribute is dependency drift.
      any("(module 'vllm[\\w.]*' has no attribute '\\w+')"),
      any('(Failed to import (?:required classes|vLLM components): [^\\n]{0,80})'),
      any("(No module named '?benchmark\\.kernels[\\w.]*'?)"),
    ],
  },
  {
    id: 'no-metrics.requests-failed',
    category: 'no-metrics',
    cause: 'requests-failed',
    strength: S,
    description: 'The benchmark client got no successful response: {1}',
    indications: [
      any('(Initial test run failed - Please make sure benchmark arguments are correctly specified[^\\n]{0,80})'),
      any('^\\s{0,8}(Successful requests:\\s{1,60}0)\\s*$'),
      any("(error='(?:Bad Request|Not Found|Internal Server Error)'[^\\n]{0,40})"),
      // Client errors only: a server's 500 has its cause in the server's own log.
      any('(HTTP/1\\.[01]" (?:400|404|422) [^\\n]{0,40})'),
      any('(All requests failed[^\\n]{0,60})', 'i'),
      // Bench Triage's own summary of a result file whose every request failed (core/ingest standalone).
      any('(All \\d{1,9} requests failed[^\\n]{0,160})'),
      any("(This model's maximum context length is \\d+ tokens[^\\n]{0,80})"),
    ],
  },
];
