import { metricDef } from '../ingest/metrics';

/** Signed relative change of `other` over `base` in %, positive = better (by the metric's direction). */
export function improvement(key: string, base: number, other: number): number | null {
  const def = metricDef(key);
  if (!def || def.direction === 'none' || base === 0 || !Number.isFinite(base) || !Number.isFinite(other)) return null;
  const rel = ((other - base) / Math.abs(base)) * 100;
  return def.direction === 'lower' ? -rel : rel;
}

/** Metrics present in every one of the given metric sets, in a stable preference order. */
export function commonMetrics(...sets: Array<Record<string, number> | undefined>): string[] {
  const present = sets.filter((s): s is Record<string, number> => !!s);
  if (!present.length) return [];
  return Object.keys(present[0]).filter(k => metricDef(k)?.kind === 'metric' && metricDef(k)?.direction !== 'none' && present.every(s => k in s));
}

const PRIMARY = ['output_throughput_tok_s', 'request_throughput_req_s', 'total_throughput_tok_s', 'throughput_tok_s', 'ttft_mean_ms', 'tpot_mean_ms',
  'itl_mean_ms', 'latency_avg_ms', 'e2el_mean_ms', 'test_avg_ms', 'input_throughput_tok_s', 'elapsed_time_s', 'generate_time_s', 'throughput_unspecified'];

/** The metric a comparison is judged on: the first shared one by preference. */
export function primaryShared(...sets: Array<Record<string, number> | undefined>): string | null {
  const common = new Set(commonMetrics(...sets));
  return PRIMARY.find(k => common.has(k)) ?? [...common][0] ?? null;
}

export function mean(xs: number[]): number { return xs.reduce((a, b) => a + b, 0) / xs.length; }
export function spread(xs: number[]): number { if (xs.length < 2) return 0; const m = mean(xs); return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)); }
