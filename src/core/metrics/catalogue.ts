/**
 * The one metric catalogue: every metric spelling in the ISO-Bench corpus (research §1.12) and in
 * vLLM's result JSON, mapped to one canonical key with a unit and a direction. Values are
 * converted to the canonical unit. Headline rules (`headline.ts`), the printed-block parser
 * (`printed.ts`) and unit evidence (`evidence.ts`) all use these keys.
 */
export type Direction = 'lower' | 'higher' | 'none';
export type MetricKind = 'metric' | 'count' | 'param';

export interface MetricDef {
  key: string;
  label: string;
  unit: string;
  direction: Direction;
  kind: MetricKind;
}

export interface Alias {
  canonical: string;
  scale?: number;
}

const M = (key: string, label: string, unit: string, direction: Direction, kind: MetricKind = 'metric'): MetricDef => ({ key, label, unit, direction, kind });

/** Unit label of a value whose unit could not be established. */
export const UNKNOWN_UNIT = 'unit unknown';

/**
 * Per-request latency families. `tpot_incl` is GuideLLM's (≥ 0.4) time per output token, which
 * counts the first token too, unlike vLLM's TPOT; `client_queue` is vLLM's client-side queueing
 * time under `--max-concurrency`. Any percentile of a family is a metric (`ttft_p99.9_ms`).
 */
const LATENCY_FAMILIES = {
  ttft: 'TTFT',
  tpot: 'TPOT',
  itl: 'ITL',
  e2el: 'E2E latency',
  tpot_incl: 'TPOT incl. first token',
  client_queue: 'Client queue time',
  e2el_incl_queue: 'E2E latency incl. client queue',
} as const;
export type LatencyFamily = keyof typeof LATENCY_FAMILIES;

/** Canonical metrics. Latencies in ms; throughputs per second. */
export const METRICS: readonly MetricDef[] = [
  ...(Object.keys(LATENCY_FAMILIES) as LatencyFamily[]).flatMap(base =>
    (['mean', 'median', 'p90', 'p95', 'p99'] as const).map(stat => M(`${base}_${stat}_ms`, `${LATENCY_FAMILIES[base]} ${stat}`, 'ms', 'lower')),
  ),
  M('latency_avg_ms', 'Average latency', 'ms', 'lower'),
  M('latency_p50_ms', 'Latency p50', 'ms', 'lower'),
  M('latency_p90_ms', 'Latency p90', 'ms', 'lower'),
  M('latency_p99_ms', 'Latency p99', 'ms', 'lower'),
  M('request_throughput_req_s', 'Request throughput', 'req/s', 'higher'),
  M('output_throughput_tok_s', 'Output token throughput', 'tok/s', 'higher'),
  M('total_throughput_tok_s', 'Total token throughput', 'tok/s', 'higher'),
  M('input_throughput_tok_s', 'Input token throughput', 'tok/s', 'higher'),
  M('peak_output_throughput_tok_s', 'Peak output token throughput', 'tok/s', 'higher'),
  M('request_goodput_req_s', 'Request goodput', 'req/s', 'higher'),
  M('rtfx', 'Inverse real-time factor', 'x', 'higher'),
  // The field name says tokens/s but not which tokens (output in some pipelines, total in others).
  M('throughput_tok_s', 'Token throughput (which tokens not stated)', 'tok/s', 'higher'),
  // A catch-all `throughput` (S1) or a field whose evidence contradicts its name (research §7.5).
  M('throughput_unspecified', 'Throughput', UNKNOWN_UNIT, 'higher'),
  M('elapsed_time_s', 'Elapsed time', 's', 'lower'),
  M('warmup_time_s', 'Warm-up time', 's', 'lower'),
  M('generate_time_s', 'Generate time', 's', 'lower'),
  M('server_startup_time_s', 'Server start-up time', 's', 'lower'),
  M('test_avg_ms', 'Perf test average', 'ms', 'lower'),
  M('test_p50_ms', 'Perf test p50', 'ms', 'lower'),
  M('test_p95_ms', 'Perf test p95', 'ms', 'lower'),
  M('speedup', 'Speed-up', 'x', 'higher'),
  M('successful_requests', 'Successful requests', 'requests', 'none', 'count'),
  M('failed_requests', 'Failed requests', 'requests', 'none', 'count'),
  M('peak_concurrent_requests', 'Peak concurrent requests', 'requests', 'none', 'count'),
  M('total_input_tokens', 'Total input tokens', 'tokens', 'none', 'count'),
  M('total_output_tokens', 'Total output tokens', 'tokens', 'none', 'count'),
  M('total_tokens', 'Total tokens', 'tokens', 'none', 'count'),
  M('num_prompts', 'Prompts', 'prompts', 'none', 'count'),
  M('benchmark_duration_s', 'Benchmark duration', 's', 'none', 'count'),
  M('iters', 'Iterations', '', 'none', 'param'),
  M('warmup', 'Warm-up iterations', '', 'none', 'param'),
  M('batch_size', 'Batch size', '', 'none', 'param'),
  M('seq_len', 'Sequence length', '', 'none', 'param'),
];

const BY_KEY = new Map(METRICS.map(m => [m.key, m]));
const PERCENTILE_KEY = /^([a-z0-9_]+?)_p(\d{1,2}(?:\.\d{1,3})?)_ms$/;
const LATENCY_PERCENTILE = /^latency_p(\d{1,2}(?:\.\d{1,3})?)_ms$/;
export function metricDef(key: string): MetricDef | undefined {
  const d = BY_KEY.get(key);
  if (d) return d;
  // Any percentile of a latency family (`--metric-percentiles 25,99.9`): made once, then kept.
  const m = PERCENTILE_KEY.exec(key);
  const lat = LATENCY_PERCENTILE.exec(key);
  let def: MetricDef | undefined;
  if (lat) def = M(key, `Latency p${lat[1]}`, 'ms', 'lower');
  else if (m && m[1] in LATENCY_FAMILIES) def = M(key, `${LATENCY_FAMILIES[m[1] as LatencyFamily]} p${m[2]}`, 'ms', 'lower');
  if (def && BY_KEY.size < 10_000) BY_KEY.set(key, def);
  return def;
}

/** The canonical key of a percentile of a latency family (p50 is the median). */
const PCT_KEYS = new Map<string, Map<number, string>>();
let pctKeysKept = 0;
export function percentileKey(family: LatencyFamily | 'latency', p: number): string {
  // Memoised by family then percentile (no memo key built per call: readers ask thousands of times).
  let byP = PCT_KEYS.get(family);
  let k = byP?.get(p);
  if (k === undefined) {
    k = family !== 'latency' && p === 50 ? `${family}_median_ms` : `${family}_p${Number(p.toFixed(3))}_ms`;
    if (pctKeysKept < 10_000) {
      if (!byP) PCT_KEYS.set(family, (byP = new Map()));
      byP.set(p, k);
      pctKeysKept++;
    }
  }
  return k;
}

/** Unit families: only metrics of one family measure the same kind of quantity. */
export function unitFamily(key: string): 'ms' | 's' | 'req/s' | 'tok/s' | 'x' | 'unknown' | 'count' {
  const d = metricDef(key);
  if (!d || d.unit === UNKNOWN_UNIT) return 'unknown';
  if (d.kind !== 'metric') return 'count';
  return d.unit as 'ms' | 's' | 'req/s' | 'tok/s' | 'x';
}

const ALIASES = new Map<string, Alias>();
function alias(canonical: string, spellings: string[], scale?: number): void {
  if (!BY_KEY.has(canonical)) throw new Error(`alias table: unknown canonical ${canonical}`);
  for (const s of spellings) ALIASES.set(s, { canonical, scale });
}
for (const base of ['ttft', 'tpot', 'itl'] as const) {
  for (const stat of ['mean', 'median', 'p90', 'p95', 'p99'] as const) {
    const statWord = stat === 'median' ? ['median', 'p50'] : [stat];
    const spellings: string[] = [];
    for (const w of statWord) spellings.push(`${base}_${w}`, `${base}_${w}_ms`, `${w}_${base}_ms`);
    alias(`${base}_${stat}_ms`, spellings);
  }
}
for (const stat of ['mean', 'median', 'p90', 'p95', 'p99'] as const) {
  const words = stat === 'median' ? ['median', 'p50'] : [stat];
  alias(
    `e2el_${stat}_ms`,
    words.flatMap(w => [`e2e_latency_${w}`, `e2el_${w}`, `e2el_${w}_ms`, `${w}_e2el_ms`]),
  );
}
alias('latency_avg_ms', ['latency_avg', 'latency_avg_ms', 'latency_ms', 'avg_latency_ms']);
alias('latency_avg_ms', ['avg_latency_s', 'avg_latency'], 1000);
alias('latency_p50_ms', ['latency_p50_ms', 'p50_latency_ms']);
alias('latency_p50_ms', ['p50_latency_s'], 1000);
alias('latency_p90_ms', ['latency_p90_ms', 'p90_latency_ms']);
alias('latency_p99_ms', ['latency_p99_ms', 'p99_latency_ms']);
alias('latency_p99_ms', ['p99_latency_s'], 1000);
alias('request_throughput_req_s', ['request_throughput', 'request_throughput_req_s', 'throughput_req_s']);
alias('output_throughput_tok_s', ['output_throughput', 'output_token_throughput_tok_s', 'output_throughput_tok_s']);
alias('total_throughput_tok_s', ['total_throughput', 'total_token_throughput', 'total_token_throughput_tok_s', 'token_throughput']);
alias('input_throughput_tok_s', ['input_throughput', 'input_throughput_tok_s']);
alias('throughput_tok_s', ['throughput_tok_s']);
alias('throughput_unspecified', ['throughput']);
alias('elapsed_time_s', ['elapsed_time_s', 'elapsed_time']);
alias('warmup_time_s', ['warmup_time_s']);
alias('generate_time_s', ['generate_time_s']);
alias('server_startup_time_s', ['server_startup_time_s']);
alias('test_avg_ms', ['avg_ms', 'baseline_ms', 'patched_ms']);
alias('test_p50_ms', ['p50_ms']);
alias('test_p95_ms', ['p95_ms']);
alias('speedup', ['speedup']);
alias('successful_requests', ['successful_requests', 'completed_requests', 'completed']);
alias('total_input_tokens', ['total_input_tokens']);
alias('total_output_tokens', ['total_output_tokens', 'total_generated_tokens']);
alias('total_tokens', ['total_tokens']);
alias('num_prompts', ['num_prompts']);
alias('benchmark_duration_s', ['benchmark_duration_s', 'duration']);
alias('iters', ['iters']);
alias('warmup', ['warmup']);
alias('batch_size', ['batch_size']);
alias('seq_len', ['seq_len']);

/** Keys in metric containers that are not metrics at all (text, flags, bookkeeping). */
const IGNORED = new Set([
  'raw_output',
  'error',
  'error_code',
  'impl_tag',
  'commit_hash',
  'device',
  'dtype',
  'eq_level',
  'opt_path_hit',
  'target_resolved',
  'attempted_module',
  'attempted_symbol',
  'data_size_mb',
  'num_transfers',
  'transfer_count',
  'batch_transfer_count',
  'total_bytes',
  'hw_info',
  'strategy',
  'notes',
  // bookkeeping numbers at the top level of flat result files and in vLLM's result JSON
  'duration_s',
  'timestamp',
  'v1_engine',
  'request_rate',
  'burstiness',
  'max_concurrency',
  'best_of',
  'date',
  'request_goodput',
  'request_goodput:',
  'input_lens',
  'output_lens',
  'ttfts',
  'itls',
  'generated_texts',
  'errors',
  // vLLM's result JSON reports standard deviations: spread, not a comparable metric
  'std_ttft_ms',
  'std_tpot_ms',
  'std_itl_ms',
  'std_e2el_ms',
]);

export interface AliasHint {
  /** `throughput_tok_s` in S3/S4 serving runs is the output token throughput (research §1.12). */
  servingThroughputIsOutput?: boolean;
}

export function lookupAlias(key: string, hint: AliasHint = {}): Alias | undefined {
  if (key === 'throughput_tok_s' && hint.servingThroughputIsOutput) return { canonical: 'output_throughput_tok_s' };
  return ALIASES.get(key);
}

export function isKnownMetricKey(key: string): boolean {
  return ALIASES.has(key) || IGNORED.has(key);
}

/** One numeric field as read, before unit evidence may re-label it. */
export interface MetricField {
  field: string;
  value: number;
  canonical: string;
}

export interface NormalisedMetrics {
  metrics: Record<string, number>;
  counts: Record<string, number>;
  /** Where each canonical metric came from (field spelling), for unit evidence and hovers. */
  fields: MetricField[];
  /** Numeric keys the table does not know; kept so nothing is silently dropped. */
  unknown: string[];
  /** Values that could not be used as they are, each naming its field. */
  problems: Array<{ field: string; message: string }>;
}

export function emptyMetrics(): NormalisedMetrics {
  return { metrics: {}, counts: {}, fields: [], unknown: [], problems: [] };
}

const NUMERIC_STRING = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/**
 * Adds the numeric entries of `container` (only the keys listed in `only`, when given) into `into`.
 * A number written as a string is read, and said so; a negative latency or throughput is refused
 * with a problem naming the field (it would otherwise score as a huge win).
 */
export function addMetrics(into: NormalisedMetrics, container: unknown, hint: AliasHint = {}, only?: ReadonlySet<string>, prefix = ''): NormalisedMetrics {
  if (!container || typeof container !== 'object' || Array.isArray(container)) return into;
  for (const [key, raw] of Object.entries(container as Record<string, unknown>)) {
    if (only && !only.has(key)) continue;
    let value: number;
    const known = lookupAlias(key, hint);
    const said = (what: string) => into.problems.push({ field: prefix + key, message: what });
    if (typeof raw === 'number') value = raw;
    else if (typeof raw === 'string' && NUMERIC_STRING.test(raw) && known) {
      value = Number(raw);
      said(`number written as a string ("${raw.trim().slice(0, 40)}"); read as ${value}`);
    } else {
      // A metric this tool knows whose value it can't read is said, never silently dropped.
      if (known && raw !== null && raw !== undefined && BY_KEY.get(known.canonical)?.kind !== 'param')
        said(`${JSON.stringify(raw)?.slice(0, 40) ?? typeof raw} is not a number (${Array.isArray(raw) ? 'an array' : typeof raw}): left out`);
      continue;
    }
    if (!Number.isFinite(value)) {
      if (known) said(`${typeof raw === 'string' ? `"${raw.trim().slice(0, 40)}"` : String(value)} is not a finite number: left out`);
      continue;
    }
    const a = known;
    if (!a) {
      if (!IGNORED.has(key)) into.unknown.push(key);
      continue;
    }
    const def = BY_KEY.get(a.canonical)!;
    if (def.kind === 'param') continue;
    if (value < 0) {
      into.problems.push({ field: prefix + key, message: `negative value ${value} for ${def.label} is impossible; left out` });
      continue;
    }
    const v = a.scale ? value * a.scale : value;
    // A throughput of 0 from a run that produced a result measured nothing: no ratio can be taken against it.
    if (v === 0 && def.kind === 'metric' && def.direction === 'higher') {
      said(`0 ${def.unit} for ${def.label}: nothing was measured, left out`);
      continue;
    }
    // Below the smallest normal double a value is noise of the writer (1e-320): no ratio can be taken against it.
    if (v !== 0 && Math.abs(v) < 2.2250738585072014e-308) {
      said(`${value} is too small to compare (a denormal): left out`);
      continue;
    }
    const bucket = def.kind === 'count' ? into.counts : into.metrics;
    if (!(a.canonical in bucket)) {
      bucket[a.canonical] = v;
      if (def.kind === 'metric') into.fields.push({ field: prefix + key, value: v, canonical: a.canonical });
    }
  }
  return into;
}

/** Every spelling the table knows, for tests and for the language server's hovers. */
export function knownSpellings(): string[] {
  return [...ALIASES.keys()];
}

export function formatValue(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(1) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
}

export function formatMetric(def: MetricDef, value: number): string {
  return `${def.label} ${formatValue(value)}${def.unit && def.unit !== UNKNOWN_UNIT ? ' ' + def.unit : def.unit === UNKNOWN_UNIT ? ` (${UNKNOWN_UNIT})` : ''}`;
}
