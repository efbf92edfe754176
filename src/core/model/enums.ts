import { z } from 'zod';

/** The three ways a commit is measured. Order matters: it is the order the runners execute. */
export const ROLES = ['baseline', 'human', 'agent'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/** Small status enum; the original status string is always kept next to it. */
export const RUN_STATUSES = ['success', 'failed', 'timeout', 'skipped', 'not_run'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * Result schemas: ISO-Bench's per-commit files (research file §1), the extension's own, and the
 * standalone files the field's benchmark tools write (named for the tool; they name no commit).
 */
export const SCHEMA_IDS = [
  'S1',
  'S2',
  'S3',
  'S4',
  'S5',
  'S6',
  'S7',
  'S8',
  'S9',
  'S10',
  'BT1',
  'BT2',
  'vllm-serve',
  'vllm-throughput',
  'vllm-latency',
  'sglang-serve',
  'guidellm',
  'aiperf',
] as const;
export const SchemaIdSchema = z.enum(SCHEMA_IDS);
export type SchemaId = z.infer<typeof SchemaIdSchema>;

export const BENCHMARK_MODES = ['serving', 'throughput', 'latency', 'prefix_caching', 'other'] as const;
export const BenchmarkModeSchema = z.enum(BENCHMARK_MODES);
export type BenchmarkMode = z.infer<typeof BenchmarkModeSchema>;
