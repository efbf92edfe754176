import { z } from 'zod';
import { RoleSchema, RunStatusSchema, SchemaIdSchema, BenchmarkModeSchema } from './enums';
import { WorkloadSchema } from './workload';

/** Where a run came from: the file, the schema detected, and the JSON pointer of the role's data. */
export const ProvenanceSchema = z.object({
  file: z.string(),
  schema: SchemaIdSchema,
  pointer: z.string(),
});

/** A cut the source applied to log text before we saw it (research §4.7). */
export const TruncationSchema = z.object({
  kind: z.enum(['head', 'tail']),
  cap: z.number().int().positive(),
});
export type Truncation = z.infer<typeof TruncationSchema>;

/** Log text embedded in a result file, with the field it came from. */
export const EmbeddedLogSchema = z.object({
  field: z.string(),
  length: z.number().int().nonnegative(),
  truncation: TruncationSchema.nullable(),
});
export type EmbeddedLog = z.infer<typeof EmbeddedLogSchema>;

/** How a metric's unit was established (core/metrics/evidence). */
export const MetricSourceSchema = z.object({
  field: z.string(),
  evidence: z.enum(['printed', 'counts', 'name', 'raw', 'none']),
  note: z.string().optional(),
});

/** Something in the data that was read but could not be used as written; names the file's field. */
export const DataProblemSchema = z.object({ field: z.string(), message: z.string() });

/**
 * How a run of a standalone result file (which names no commit or role) got its identity: a row
 * of a `bench-triage.csv` manifest, or the file's path (`<commit>/<role>[/<agent>]/…`).
 */
export const IdentitySchema = z.object({
  by: z.enum(['manifest', 'path']),
  /** The manifest's path, or the path segments that named commit and role. */
  source: z.string(),
  line: z.number().int().positive().optional(),
});
export type Identity = z.infer<typeof IdentitySchema>;

/** Requests of a benchmark that failed: the run is not a clean measurement (its numbers are not compared unless the user allows it). */
export const FailedRequestsSchema = z.object({
  failed: z.number().int().nonnegative(),
  /** Requests attempted, where the file says. */
  total: z.number().int().nonnegative().nullable(),
  firstError: z.string().nullable(),
  /** The field the count was read from. */
  field: z.string(),
});
export type FailedRequests = z.infer<typeof FailedRequestsSchema>;

export const RunSchema = z.object({
  /** Stable within one scan: `<file>#<pointer>`. */
  id: z.string(),
  /** 40-hex where known, else the longest prefix known. */
  commit: z.string(),
  role: RoleSchema,
  /** Pipeline that produced it: modal, docker, separate, docker-verify, rerun, omniperf, native, sglang-modal, bench-triage. */
  source: z.string(),
  agent: z.string().nullable(),
  /** The project measured (vllm, sglang …), from the data; null when nothing says. */
  project: z.string().nullable(),
  status: RunStatusSchema,
  originalStatus: z.string(),
  error: z.string().nullable(),
  /** JSON field (dotted path) the error text was read from; null when the scanner composed it. */
  errorField: z.string().nullable(),
  metrics: z.record(z.string(), z.number()),
  /** Per canonical metric: the field it was read from and what vouches for its unit. */
  metricSources: z.record(z.string(), MetricSourceSchema),
  /** Per-request samples (vLLM --save-detailed), by canonical metric, in the metric's unit. */
  samples: z.record(z.string(), z.array(z.number())).optional(),
  counts: z.record(z.string(), z.number()),
  logs: z.array(EmbeddedLogSchema),
  /** Sibling log files (stdout.txt / stderr.txt), relative to the scanned folder. */
  logFiles: z.array(z.string()),
  model: z.string().nullable(),
  command: z.string().nullable(),
  benchmarkMode: BenchmarkModeSchema.nullable(),
  gpuConfig: z.string().nullable(),
  image: z.string().nullable(),
  fixes: z.array(z.string()),
  version: z.string().nullable(),
  parent: z.string().nullable(),
  timestamp: z.string().nullable(),
  durationS: z.number().nullable(),
  /** Values re-labelled, read from strings or refused, each naming its field. */
  problems: z.array(DataProblemSchema),
  provenance: ProvenanceSchema,
  /** Standalone result files only: where commit, role and agent came from. */
  identity: IdentitySchema.optional(),
  /** The workload the result file itself records (settings, counts), by workload key. */
  workload: WorkloadSchema.optional(),
  failedRequests: FailedRequestsSchema.optional(),
  /** Free labels the file carries (vLLM `--metadata`, SGLang `--tag`, GuideLLM labels). */
  labels: z.record(z.string(), z.string()).optional(),
});
export type Run = z.infer<typeof RunSchema>;

/** The `source` of a run read from an image build record (BT2): history of its role, or its failure. */
export const BUILD_SOURCE = 'bench-triage-build';
