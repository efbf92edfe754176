import { z } from 'zod';

/**
 * The vocabulary of a benchmark's workload, shared by every tool: what a run asked the server or
 * the engine to do. Result files and perf commands are both read into these keys (with each
 * tool's and version's defaults made explicit), so that runs of different tools, forms and
 * versions are compared on the same terms.
 */
export const WORKLOAD_KEYS = {
  dataset: 'dataset',
  input_len: 'input length (tokens)',
  output_len: 'output length (tokens)',
  prefix_len: 'shared prefix (tokens)',
  num_prompts: 'requests',
  request_rate: 'request rate (req/s)',
  burstiness: 'burstiness',
  max_concurrency: 'maximum concurrency',
  ramp_up: 'request-rate ramp-up',
  temperature: 'temperature',
  top_p: 'top-p',
  top_k: 'top-k',
  ignore_eos: 'ignore EOS',
  seed: 'seed',
  batch_size: 'batch size',
  n: 'sequences per prompt',
  num_iters: 'measured iterations',
  input_tokens: 'total input tokens',
  endpoint: 'endpoint',
  streaming: 'streaming',
} as const;
export type WorkloadKey = keyof typeof WORKLOAD_KEYS;

/** One workload value and where it was read: the file's field, or the command's flag (or its default). */
export const WorkloadValueSchema = z.object({ value: z.string(), from: z.string() });
export type WorkloadValue = z.infer<typeof WorkloadValueSchema>;
export const WorkloadSchema = z.record(z.string(), WorkloadValueSchema);
export type Workload = Partial<Record<WorkloadKey, WorkloadValue>>;

/** A number as the workload writes it: `inf` for unbounded, shortest decimal otherwise. */
export function workloadNumber(v: number): string {
  if (v === Infinity) return 'inf';
  // Whole numbers as they are (most settings): rounding them to 12 digits changes nothing below 1e12.
  if (Number.isInteger(v) && Math.abs(v) < 1e12) return String(v);
  return String(Number(v.toPrecision(12)));
}

/** Lengths a random dataset draws, as a fixed number or an inclusive range. */
export function lengthRange(lo: number, hi: number): string {
  const a = Math.round(lo),
    b = Math.round(hi);
  return a === b ? String(a) : `${a}–${b}`;
}
