import type { BenchmarkMode } from '../model';
import { metricDef, type MetricDef } from './catalogue';

/**
 * Which metric a verdict is judged on, per benchmark mode (the README states the rule):
 *
 * - serving: a throughput (output tokens/s, else requests/s, else total tokens/s), else TPOT mean,
 *   else TTFT mean. Headline metrics: that throughput, TTFT mean and TPOT mean.
 * - throughput: requests/s, else total tokens/s, else output tokens/s.
 * - latency: average latency, else p50. Headline metrics: average (or p50) and p99.
 * - prefix caching: generate time, else elapsed time.
 * - other (generated perf tests): the test's average time, else its p50.
 *
 * A commit is "mixed" when the agent wins on one headline metric and loses on another.
 */
interface Rule {
  order: string[];
  groups: string[][];
}

const THROUGHPUTS = ['output_throughput_tok_s', 'request_throughput_req_s', 'total_throughput_tok_s', 'throughput_tok_s'];
const GENERIC = [
  ...THROUGHPUTS,
  'tpot_mean_ms',
  'ttft_mean_ms',
  'itl_mean_ms',
  'e2el_mean_ms',
  'latency_avg_ms',
  'latency_p50_ms',
  'test_avg_ms',
  'generate_time_s',
  'elapsed_time_s',
  'input_throughput_tok_s',
  'throughput_unspecified',
];

export const HEADLINE_RULES: Record<BenchmarkMode, Rule> = {
  serving: {
    order: [...THROUGHPUTS, 'tpot_mean_ms', 'ttft_mean_ms', 'itl_mean_ms', 'e2el_mean_ms', 'throughput_unspecified'],
    groups: [[...THROUGHPUTS, 'throughput_unspecified'], ['ttft_mean_ms'], ['tpot_mean_ms']],
  },
  throughput: {
    order: ['request_throughput_req_s', 'total_throughput_tok_s', 'output_throughput_tok_s', 'throughput_tok_s', 'throughput_unspecified', 'elapsed_time_s'],
    groups: [['request_throughput_req_s', 'total_throughput_tok_s', 'output_throughput_tok_s', 'throughput_tok_s', 'throughput_unspecified']],
  },
  latency: {
    order: ['latency_avg_ms', 'latency_p50_ms', 'latency_p99_ms', 'latency_p90_ms'],
    groups: [['latency_avg_ms', 'latency_p50_ms'], ['latency_p99_ms']],
  },
  prefix_caching: {
    order: ['generate_time_s', 'elapsed_time_s', 'output_throughput_tok_s', 'input_throughput_tok_s', 'throughput_tok_s'],
    groups: [['generate_time_s', 'elapsed_time_s', 'output_throughput_tok_s']],
  },
  other: { order: ['test_avg_ms', 'test_p50_ms', ...GENERIC], groups: [['test_avg_ms', 'test_p50_ms']] },
};

/** A user's choice of headline metric per mode (`benchTriage.primaryMetric`, CLI `--metric`). */
export type PrimaryOverride = Partial<Record<BenchmarkMode | 'all', string>>;

export interface Headline {
  primary: string;
  /** The headline metrics (primary first) a "mixed" verdict looks at. */
  headline: string[];
  /** Why the rule, not the user's choice, decided (the chosen metric was not measured by every role). */
  note: string | null;
}

/** Modes a user may name in an override. */
export const OVERRIDE_KEYS = ['all', 'serving', 'throughput', 'latency', 'prefix_caching', 'other'] as const;

/**
 * Serving at a fixed request rate (open loop): as long as the server keeps up, throughput is the
 * offered load whatever the patch does, so latency decides — TPOT, then TTFT (vLLM's fixed-QPS
 * dashboards compare latencies too).
 */
const RATE_LIMITED: Rule = {
  order: ['tpot_mean_ms', 'ttft_mean_ms', 'itl_mean_ms', 'e2el_mean_ms', ...THROUGHPUTS, 'throughput_unspecified'],
  groups: [['tpot_mean_ms', 'itl_mean_ms'], ['ttft_mean_ms'], [...THROUGHPUTS, 'throughput_unspecified']],
};

export function chooseHeadline(
  measured: readonly string[],
  mode: BenchmarkMode | null,
  override: PrimaryOverride = {},
  /** The fixed request rate of an open-loop serving run (null: all at once, or a closed loop). */
  requestRate: string | null = null,
): Headline | null {
  if (!measured.length) return null;
  const have = new Set(measured);
  const limited = mode === 'serving' && requestRate !== null && requestRate !== 'inf';
  const rule = limited ? RATE_LIMITED : mode ? HEADLINE_RULES[mode] : { order: GENERIC, groups: [GENERIC] };
  const wanted = (mode && override[mode]) || override.all;
  let note: string | null = null;
  let primary: string | undefined;
  if (wanted) {
    if (have.has(wanted)) primary = wanted;
    else note = `${wanted} (your choice for ${mode ?? 'all'} benchmarks) was not measured by every role; the rule picked the headline`;
  }
  if (!primary && limited && rule.order.slice(0, 4).some(k => have.has(k)))
    note = `the request rate was fixed (${requestRate} req/s): throughput follows the offered load, so latency is the headline`;
  primary ??= rule.order.find(k => have.has(k)) ?? GENERIC.find(k => have.has(k)) ?? [...measured].sort()[0];
  const headline = [primary];
  for (const g of rule.groups) {
    const k = g.find(x => have.has(x));
    if (k && !headline.includes(k) && !g.includes(primary)) headline.push(k);
  }
  return { primary, headline, note };
}

/** The one metric a one-line summary shows for a single run. */
export function displayMetric(metrics: Readonly<Record<string, number>>, mode: BenchmarkMode | null = null): { def: MetricDef; value: number } | null {
  const keys = Object.keys(metrics).filter(k => metricDef(k)?.kind === 'metric');
  const h = chooseHeadline(keys, mode);
  return h ? { def: metricDef(h.primary)!, value: metrics[h.primary] } : null;
}
