import { dict } from '../../../model';
import { z } from 'zod';
import { lengthRange, workloadNumber } from '../../../model';
import { percentileKey, valuesInMs, type LatencyFamily } from '../../../metrics';
import { isObj, str, type Detector, type Obj } from '../common';
import { addMetric, epochSeconds, failures, measuredNumber, newReading, setWorkload, type Reading } from './reader';
import { standaloneDraft } from './draft';

/**
 * GuideLLM's `benchmarks.json` (sources: vllm-project/guidellm `src/guidellm/benchmark/schemas/`
 * @ ee7a7745 (v2 report, v0.7+), @ e82b62ae (v0.5–0.6, `metadata.version: 1`), @ f6175cdd (v0.4),
 * `src/guidellm/benchmark/benchmark.py` @ 121dcdc4 (v0.3)). One file holds one benchmark per rate
 * of a sweep: each is its own run and its own workload.
 */

/** GuideLLM metric → our metric. Its ITL is `(last − first token)/(output tokens − 1)`: vLLM's TPOT. */
type Target = { family: LatencyFamily; scale: number } | { rate: string } | { ignore: string };
const METRICS_V4: Record<string, Target> = {
  requests_per_second: { rate: 'request_throughput_req_s' },
  output_tokens_per_second: { rate: 'output_throughput_tok_s' },
  tokens_per_second: { rate: 'total_throughput_tok_s' },
  prompt_tokens_per_second: { rate: 'input_throughput_tok_s' },
  time_to_first_token_ms: { family: 'ttft', scale: 1 },
  inter_token_latency_ms: { family: 'tpot', scale: 1 },
  // From v0.4 on it is measured from the request's start: the first token's wait is in it.
  time_per_output_token_ms: { family: 'tpot_incl', scale: 1 },
  request_latency: { family: 'e2el', scale: 1000 },
  request_totals: { ignore: 'request counts (read for failures and counts)' },
  request_concurrency: { ignore: 'the concurrency the load reached: a result of the workload, not a figure to win on' },
  request_streaming_iterations_count: { ignore: 'streamed chunks per request' },
  prompt_token_count: { ignore: 'per-request input lengths (the configured lengths are the workload)' },
  output_token_count: { ignore: 'per-request output lengths (the configured lengths are the workload)' },
  total_token_count: { ignore: 'per-request total lengths' },
  output_tokens_per_iteration: { ignore: 'tokens per streamed chunk' },
  iter_tokens_per_iteration: { ignore: 'tokens per streamed chunk' },
  time_to_first_output_token_ms: { ignore: 'first non-reasoning token (reasoning models); TTFT is compared' },
  text: { ignore: 'per-modality summaries (the token figures are compared)' },
  image: { ignore: 'per-modality summaries (the token figures are compared)' },
  video: { ignore: 'per-modality summaries (the token figures are compared)' },
  audio: { ignore: 'per-modality summaries (the token figures are compared)' },
  tool_call: { ignore: 'tool-call token summaries' },
  // GuideLLM 0.8 (multi-turn conversations; seen in a report of 0.8.0.dev18).
  time_to_last_round_trip_ms: { ignore: "the last turn's wait in a multi-turn conversation (per-request latencies are compared)" },
  avg_round_trip_time_ms: { ignore: 'the mean turn time of a multi-turn conversation (per-request latencies are compared)' },
};
/** v0.3 measured TPOT from the first token and divided by every output token: neither vLLM's TPOT nor ITL. */
const METRICS_V3: Record<string, Target> = {
  ...METRICS_V4,
  time_per_output_token_ms: { ignore: 'v0.3 divides the time after the first token by every output token: neither TPOT nor ITL as vLLM defines them' },
};
/** GuideLLM's percentile names → percent. */
const PCT: Record<string, number> = { p001: 0.1, p01: 1, p05: 5, p10: 10, p25: 25, p50: 50, p75: 75, p90: 90, p95: 95, p99: 99, p999: 99.9 };

/**
 * The field names of one metric's distribution in one benchmark, made once: every report repeats
 * them, and a sweep's runs would otherwise each build (and keep) a hundred such strings.
 */
interface DistNames {
  at: string;
  field: string;
  mean: string;
  median: string;
  pct: Record<string, string>;
}
const NAMES_KEPT = 256;
const distNamesByIndex: Array<Map<string, DistNames>> = [];
function distNames(i: number, k: string): DistNames {
  let m = distNamesByIndex[i];
  let n = m?.get(k);
  if (n) return n;
  const at = `benchmarks.${i}.metrics.${k}`;
  const field = `${at}.successful`;
  n = { at, field, mean: `${field}.mean`, median: `${field}.median`, pct: dict() };
  for (const p in PCT) n.pct[p] = `${field}.percentiles.${p}`;
  if (i < NAMES_KEPT && Object.hasOwn(METRICS_V4, k)) {
    if (!m) distNamesByIndex[i] = m = new Map();
    m.set(k, n);
  }
  return n;
}

/** `ttft_mean_ms` …, made once per family. */
const FAMILY_KEYS = { mean: new Map<string, string>(), median: new Map<string, string>() };
function familyKey(family: LatencyFamily, stat: 'mean' | 'median'): string {
  const keys = FAMILY_KEYS[stat];
  let k = keys.get(family);
  if (k === undefined) keys.set(family, (k = `${family}_${stat}_ms`));
  return k;
}

/** The `successful` part of a status distribution: mean, median and percentiles. */
function readDistribution(r: Reading, names: DistNames, t: Target, dist: unknown): void {
  const { at, field } = names;
  if ('ignore' in t) return;
  if (!isObj(dist)) {
    if (dist !== undefined && dist !== null) r.problems.push({ field: at, message: 'is not a distribution summary: not read' });
    return;
  }
  const s = dist.successful;
  if (!isObj(s)) return;
  if (typeof s.count === 'number' && s.count === 0) return; // an empty distribution is all zeros
  if ('rate' in t) {
    const n = measuredNumber(r, names.mean, s.mean);
    if (n !== null) addMetric(r, names.mean, t.rate, n);
    return;
  }
  const mean = measuredNumber(r, names.mean, s.mean);
  if (mean !== null) addMetric(r, names.mean, familyKey(t.family, 'mean'), mean * t.scale);
  const median = measuredNumber(r, names.median, s.median);
  if (median !== null) addMetric(r, names.median, familyKey(t.family, 'median'), median * t.scale);
  const pcts = s.percentiles;
  if (isObj(pcts))
    for (const k in pcts) {
      // Own keys only: a key named `constructor` is not a percentile.
      const p = Object.hasOwn(PCT, k) ? PCT[k] : undefined;
      if (p === undefined) {
        r.problems.push({ field: `${field}.percentiles.${k}`, message: 'is not a percentile GuideLLM writes: not read' });
        continue;
      }
      const n = measuredNumber(r, names.pct[k], pcts[k]);
      if (n !== null && p !== 50) addMetric(r, names.pct[k], percentileKey(t.family, p), n * t.scale);
    }
}

/** The rate a benchmark ran at, in the shared vocabulary (strategy `type_` of the scheduler). */
function strategy(r: Reading, s: unknown, at: string): void {
  if (!isObj(s)) return;
  const type = str(s.type_) ?? str(s.kind);
  const num = (k: string) => (typeof s[k] === 'number' && Number.isFinite(s[k] as number) ? workloadNumber(s[k] as number) : null);
  switch (type) {
    case 'synchronous':
      setWorkload(r, 'max_concurrency', '1', `${at}.type_`);
      setWorkload(r, 'request_rate', 'inf', `${at}.type_`);
      break;
    case 'concurrent':
      setWorkload(r, 'max_concurrency', num('streams'), `${at}.streams`);
      setWorkload(r, 'request_rate', 'inf', `${at}.type_`);
      break;
    case 'throughput':
      setWorkload(r, 'max_concurrency', num('max_concurrency') ?? 'none', `${at}.max_concurrency`);
      setWorkload(r, 'request_rate', 'inf', `${at}.type_`);
      break;
    case 'constant':
    case 'poisson':
    case 'async':
      setWorkload(r, 'request_rate', num('rate'), `${at}.rate`);
      // Poisson arrivals are vLLM's burstiness 1; constant intervals its burstiness inf.
      setWorkload(r, 'burstiness', type === 'poisson' ? '1' : type === 'constant' ? 'inf' : null, `${at}.type_`);
      setWorkload(r, 'max_concurrency', num('max_concurrency') ?? 'none', `${at}.max_concurrency`);
      break;
    default:
      if (type) setWorkload(r, 'request_rate', type, `${at}.type_`);
  }
}

/** Synthetic data as `prompt_tokens=256,output_tokens=128` (the CLI's --data) or as an object. */
function data(r: Reading, d: unknown, at: string): void {
  let o: Obj | null = isObj(d) ? d : null;
  if (typeof d === 'string') {
    const kv = [...d.matchAll(/\b(prompt_tokens|output_tokens|prompt_tokens_min|prompt_tokens_max|output_tokens_min|output_tokens_max)\s*[=:]\s*(\d+)/g)];
    if (kv.length) o = Object.fromEntries(kv.map(m => [m[1], Number(m[2])]));
    else {
      setWorkload(r, 'dataset', d.slice(0, 200), at);
      return;
    }
  }
  if (!o) return;
  const n = (k: string) => (typeof o![k] === 'number' && Number.isFinite(o![k] as number) ? (o![k] as number) : null);
  if (n('prompt_tokens') === null && !('kind' in o)) return;
  setWorkload(r, 'dataset', str(o.kind) === 'synthetic_text' || !('kind' in o) ? 'synthetic' : (str(o.kind) ?? 'synthetic'), at);
  const len = (base: 'prompt_tokens' | 'output_tokens') => {
    const mid = n(base),
      lo = n(`${base}_min`),
      hi = n(`${base}_max`);
    if (lo !== null && hi !== null) return lengthRange(lo, hi);
    return mid !== null ? `${workloadNumber(mid)}${n(`${base}_stdev`) ? ` ± ${workloadNumber(n(`${base}_stdev`)!)}` : ''}` : null;
  };
  setWorkload(r, 'input_len', len('prompt_tokens'), `${at}.prompt_tokens`);
  setWorkload(r, 'output_len', len('output_tokens'), `${at}.output_tokens`);
}

/** Per-request samples of the successful requests (a reservoir sample when the run kept one). */
function samples(r: Reading, reqs: unknown, at: string): Record<string, number[]> | undefined {
  if (!isObj(reqs) || !Array.isArray(reqs.successful)) return undefined;
  const ok = reqs.successful.filter(isObj);
  const pick = (k: string) => ok.map(q => q[k]);
  const out: Record<string, number[]> = dict();
  const t = valuesInMs(pick('time_to_first_token_ms'), 1, `${at}.successful.time_to_first_token_ms`, r.problems);
  if (t) out.ttft_mean_ms = t;
  const p = valuesInMs(pick('inter_token_latency_ms'), 1, `${at}.successful.inter_token_latency_ms`, r.problems);
  if (p) out.tpot_mean_ms = p;
  const e = valuesInMs(pick('request_latency'), 1000, `${at}.successful.request_latency`, r.problems);
  if (e) out.e2el_mean_ms = e;
  return Object.keys(out).length ? out : undefined;
}

function firstError(reqs: unknown): string | null {
  if (!isObj(reqs) || !Array.isArray(reqs.errored)) return null;
  for (const q of reqs.errored.slice(0, 1000))
    if (isObj(q)) {
      const e = str(q.error) ?? (isObj(q.info) ? str(q.info.error) : null);
      if (e) return e;
    }
  return null;
}

const BENCHMARK_KEYS = new Set([
  'type_',
  'id_',
  'run_id',
  'config',
  'args',
  'scheduler_state',
  'scheduler_metrics',
  'run_stats',
  'worker',
  'request_loader',
  'extras',
  'metrics',
  'request_totals',
  'request_samples',
  'requests',
  'start_time',
  'end_time',
  'duration',
  'warmup_duration',
  'cooldown_duration',
]);

export const GUIDELLM: Detector = {
  id: 'guidellm',
  schema: z.looseObject({ benchmarks: z.array(z.unknown()) }),
  matches: v => Array.isArray(v.benchmarks) && v.benchmarks.some(b => isObj(b) && (b.type_ === 'generative_benchmark' || isObj(b.metrics))) && !('schema' in v),
  normalise(v: Obj, ctx) {
    const top = isObj(v.config) ? v.config : isObj(v.args) ? v.args : {};
    const spec = isObj(top.spec) ? top.spec : top;
    const version = isObj(v.metadata) && typeof v.metadata.version === 'number' ? v.metadata.version : null;
    const drafts = [];
    // Findings about benchmarks that cannot be read belong to the file: the first run carries them.
    const fileProblems: Array<{ field: string; message: string }> = [];
    const list = v.benchmarks as unknown[];
    if (list.length > 10_000) fileProblems.push({ field: 'benchmarks', message: `${list.length} benchmarks: the first 10000 are read` });
    for (let i = 0; i < list.length && i < 10_000; i++) {
      const b = list[i];
      const at = `benchmarks.${i}`;
      const r = newReading();
      if (!isObj(b)) {
        fileProblems.push({ field: at, message: 'is not a benchmark object: not read' });
        continue;
      }
      for (const k of Object.keys(b)) if (!BENCHMARK_KEYS.has(k)) r.problems.push({ field: `${at}.${k}`, message: 'key not known to this reader: not read' });
      const v3 = !isObj(b.config) && isObj(b.args);
      const cfg = isObj(b.config) ? b.config : isObj(b.args) ? b.args : {};
      strategy(r, cfg.strategy, `${at}.${isObj(b.config) ? 'config' : 'args'}.strategy`);
      const backend = isObj(cfg.backend) ? cfg.backend : isObj(spec.backend) ? spec.backend : isObj(top.backend_kwargs) ? top.backend_kwargs : null;
      const worker = isObj(b.worker) ? b.worker : null;
      const model = str(backend?.model) ?? str(top.model) ?? str(worker?.backend_model);
      const fmt = str(backend?.request_format);
      if (fmt) setWorkload(r, 'endpoint', fmt, 'config.backend.request_format');
      if (Array.isArray(spec.data) && spec.data.length) data(r, spec.data[0], 'config.spec.data.0');
      else if (Array.isArray(top.data) && top.data.length) data(r, top.data[0], 'args.data.0');
      else if (isObj(b.request_loader)) data(r, b.request_loader.data, `${at}.request_loader.data`);
      const metrics = isObj(b.metrics) ? b.metrics : {};
      const table = v3 ? METRICS_V3 : METRICS_V4;
      for (const k in metrics) {
        const t = Object.hasOwn(table, k) ? table[k] : undefined;
        if (!t) r.problems.push({ field: `${at}.metrics.${k}`, message: 'metric not known to this reader: not read' });
        else readDistribution(r, distNames(i, k), t, metrics[k]);
      }
      const totals = isObj(metrics.request_totals) ? metrics.request_totals : isObj(b.request_totals) ? b.request_totals : null;
      const n = (k: string) => (totals && typeof totals[k] === 'number' ? (totals[k] as number) : null);
      const ok = n('successful'),
        errored = n('errored');
      if (ok !== null) addMetric(r, `${at}.metrics.request_totals.successful`, 'successful_requests', ok);
      if (errored !== null) addMetric(r, `${at}.metrics.request_totals.errored`, 'failed_requests', errored);
      const d = typeof b.duration === 'number' ? b.duration : null;
      if (d !== null && d > 0) addMetric(r, `${at}.duration`, 'benchmark_duration_s', d);
      const totalMade = n('total');
      setWorkload(r, 'num_prompts', totalMade !== null && n('incomplete') === 0 ? String(totalMade) : null, `${at}.metrics.request_totals.total`);
      const fail = errored ? failures(errored, totalMade, firstError(b.requests), `${at}.metrics.request_totals.errored`) : null;
      drafts.push(
        standaloneDraft(ctx, 'guidellm', r, {
          mode: 'serving',
          model,
          timestamp: epochSeconds(b.start_time),
          samples: samples(r, b.requests, `${at}.requests`),
          failed: fail,
          completed: ok,
          tool: version === 2 ? 'guidellm (v0.7+)' : version === 1 ? 'guidellm (v0.5–0.6)' : v3 ? 'guidellm (v0.3)' : 'guidellm (v0.4)',
          pointer: at,
          durationS: d,
        }),
      );
    }
    if (drafts.length) drafts[0].problems.push(...fileProblems);
    return drafts;
  },
};
