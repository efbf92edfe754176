import { dict } from '../../../model';
import { z } from 'zod';
import { lengthRange, workloadNumber } from '../../../model';
import { percentileKey, valuesInMs, type LatencyFamily } from '../../../metrics';
import { isObj, str, type Detector, type Obj } from '../common';
import { addMetric, failures, measuredNumber, newReading, setWorkload, type Reading } from './reader';
import { standaloneDraft } from './draft';

/**
 * AIPerf's `profile_export_aiperf.json` (and GenAI-Perf's `profile_export_genai_perf.json`, the
 * same shape) (sources: ai-dynamo/aiperf `aiperf/exporters/json_exporter.py` @ db4f6397 — one
 * top-level key per metric tag — and @ c2776b11 (v0.1.1) — the tags under `records`, TTFT as
 * `ttft`). Each metric is `{unit, avg, p1 … p99, min, max, std}` in its display unit, which is
 * honoured here (ns/us/ms/sec). Its `inter_token_latency` is `(latency − TTFT)/(OSL − 1)`: vLLM's
 * TPOT; `inter_chunk_latency` is vLLM's ITL.
 */
type Target = { family: LatencyFamily } | { metric: string } | { count: string } | { ignore: string };
const TAGS: Record<string, Target> = {
  request_throughput: { metric: 'request_throughput_req_s' },
  request_latency: { family: 'e2el' },
  time_to_first_token: { family: 'ttft' },
  ttft: { family: 'ttft' },
  inter_token_latency: { family: 'tpot' },
  inter_chunk_latency: { family: 'itl' },
  output_token_throughput: { metric: 'output_throughput_tok_s' },
  goodput: { metric: 'request_goodput_req_s' },
  request_count: { count: 'successful_requests' },
  error_request_count: { count: 'failed_requests' },
  benchmark_duration: { count: 'benchmark_duration_s' },
  total_output_tokens: { count: 'total_output_tokens' },
  total_osl: { ignore: 'output tokens as the client counted them (total_output_tokens is compared)' },
  total_isl: { count: 'total_input_tokens' },
  time_to_second_token: { ignore: 'the second token’s wait (TTFT and TPOT are compared)' },
  ttst: { ignore: 'the second token’s wait (TTFT and TPOT are compared)' },
  output_token_throughput_per_user: { ignore: '1 / ITL per request: the TPOT it inverts is compared' },
  output_sequence_length: { ignore: 'per-request output lengths (the configured lengths are the workload)' },
  input_sequence_length: { ignore: 'per-request input lengths (the configured lengths are the workload)' },
  output_token_count: { ignore: 'per-request output token counts' },
  reasoning_token_count: { ignore: 'per-request reasoning tokens' },
  total_reasoning_tokens: { ignore: 'reasoning tokens in all' },
  error_isl: { ignore: 'input lengths of the failed requests' },
  total_error_isl: { ignore: 'input lengths of the failed requests' },
  min_request_timestamp: { ignore: 'first request time (the run timestamp comes from start_time)' },
  max_response_timestamp: { ignore: 'last response time' },
  good_request_count: { ignore: 'requests within the goodput targets (goodput is compared)' },
  benchmark_token_count: { ignore: 'v0.1.1 token count (the totals are compared)' },
  // Keys of AIPerf 0.10 (schema_version 1.3, seen in its users' exports).
  total_token_throughput: { metric: 'total_throughput_tok_s' },
  time_to_first_output_token: { ignore: 'the wait for the first token after any reasoning (TTFT is compared)' },
  e2e_output_token_throughput: { ignore: 'output tokens per second of each request over its whole latency (output throughput is compared)' },
  prefill_throughput_per_user: { ignore: 'input tokens per second of TTFT, per request (TTFT is compared)' },
  osl_mismatch_diff_pct: { ignore: 'how far each output length fell from the one asked (the output tokens recorded are compared)' },
  osl_mismatch_count: { ignore: 'requests whose output length was not the one asked (the output tokens recorded are compared)' },
};
/** The client's HTTP trace of each request (`http_req_*`): parts of a request's latency, which is compared whole. */
const HTTP_TRACE = /^http_req_[a-z_]+$/;
const OTHER_KEYS = new Set([
  'input_config',
  'was_cancelled',
  'error_summary',
  'start_time',
  'end_time',
  'records',
  'telemetry_data',
  // Identity of the export and of the run (AIPerf 0.10): read for labels, compared nowhere.
  'schema_version',
  'aiperf_version',
  'benchmark_id',
  'run_info',
]);

/** Factor from a display unit to ms (time), or 1 for rates and counts; null for a unit we do not know. */
function toMs(unit: unknown): number | null {
  switch (unit) {
    case 'ns':
      return 1e-6;
    case 'us':
      return 1e-3;
    case 'ms':
      return 1;
    case 'sec':
    case 's':
      return 1000;
    default:
      return null;
  }
}
const STATS: Record<string, number> = { p1: 1, p5: 5, p10: 10, p25: 25, p50: 50, p75: 75, p90: 90, p95: 95, p99: 99 };

function readTag(r: Reading, tag: string, m: unknown, at: string): void {
  const t = TAGS[tag];
  if (!t && HTTP_TRACE.test(tag)) return;
  if (!t) {
    r.problems.push({ field: at, message: 'metric not known to this reader: not read' });
    return;
  }
  if ('ignore' in t || m === null) return;
  if (!isObj(m)) {
    r.problems.push({ field: at, message: 'is not a metric result ({unit, avg, …}): not read' });
    return;
  }
  if ('family' in t) {
    const scale = toMs(m.unit);
    if (scale === null) {
      r.problems.push({ field: `${at}.unit`, message: `unit ${JSON.stringify(m.unit)} is not a time unit: not read` });
      return;
    }
    const avg = measuredNumber(r, `${at}.avg`, m.avg);
    if (avg !== null) addMetric(r, `${at}.avg`, `${t.family}_mean_ms`, avg * scale);
    for (const [k, p] of Object.entries(STATS)) {
      const x = measuredNumber(r, `${at}.${k}`, m[k]);
      if (x !== null) addMetric(r, `${at}.${k}`, percentileKey(t.family, p), x * scale);
    }
    return;
  }
  const key = 'metric' in t ? t.metric : t.count;
  let scale = 1;
  if (key === 'benchmark_duration_s') scale = (toMs(m.unit) ?? 1000) / 1000;
  else if ('metric' in t && m.unit !== undefined && !/\/sec$/.test(String(m.unit))) {
    r.problems.push({ field: `${at}.unit`, message: `unit ${JSON.stringify(m.unit)} is not a rate per second: not read` });
    return;
  }
  const avg = measuredNumber(r, `${at}.avg`, m.avg);
  if (avg !== null) addMetric(r, `${at}.avg`, key, avg * scale);
}

/** A finite number at `o[k]`, else null. */
function num(o: Obj, k: string): number | null {
  return typeof o[k] === 'number' && Number.isFinite(o[k] as number) ? (o[k] as number) : null;
}

/** The workload from `input_config` (only what the user set is written: AIPerf's defaults filled in). */
function settings(r: Reading, c: unknown): string | null {
  if (!isObj(c)) return null;
  if (Array.isArray(c.phases) || Array.isArray(c.datasets)) return phasedSettings(r, c);
  const ep = isObj(c.endpoint) ? c.endpoint : {};
  const lg = isObj(c.loadgen) ? c.loadgen : {};
  const input = isObj(c.input) ? c.input : {};
  const prompt = isObj(input.prompt) ? input.prompt : {};
  const models = Array.isArray(ep.model_names) ? ep.model_names.filter((x): x is string => typeof x === 'string') : [];
  // A value the file leaves out is AIPerf's default (before 0.10 only what the user set is written), and says so.
  const from = (o: Obj, k: string, at: string) => (k in o ? at : `AIPerf's default (${at} not written)`);
  setWorkload(r, 'endpoint', str(ep.type) ?? 'chat', from(ep, 'type', 'input_config.endpoint.type'));
  setWorkload(r, 'streaming', ep.streaming === true ? 'yes' : 'no', from(ep, 'streaming', 'input_config.endpoint.streaming'));
  const rate = num(lg, 'request_rate');
  const conc = num(lg, 'concurrency');
  setWorkload(r, 'request_rate', rate !== null ? workloadNumber(rate) : 'inf', from(lg, 'request_rate', 'input_config.loadgen.request_rate'));
  if (rate !== null)
    setWorkload(r, 'burstiness', lg.request_rate_mode === 'constant' ? 'inf' : '1', from(lg, 'request_rate_mode', 'input_config.loadgen.request_rate_mode'));
  setWorkload(
    r,
    'max_concurrency',
    conc !== null ? workloadNumber(conc) : rate !== null ? 'none' : '1',
    from(lg, 'concurrency', 'input_config.loadgen.concurrency'),
  );
  if (num(lg, 'benchmark_duration') === null)
    setWorkload(r, 'num_prompts', workloadNumber(num(lg, 'request_count') ?? 10), from(lg, 'request_count', 'input_config.loadgen.request_count'));
  const tokens = (o: unknown, dflt: number | null) => {
    if (!isObj(o)) return dflt === null ? null : String(dflt);
    const mean = num(o, 'mean') ?? dflt;
    const sd = num(o, 'stddev') ?? 0;
    return mean === null ? null : sd > 0 ? `${workloadNumber(mean)} ± ${workloadNumber(sd)}` : lengthRange(mean, mean);
  };
  const isl = isObj(prompt.input_tokens) ? prompt.input_tokens : {};
  setWorkload(r, 'input_len', tokens(prompt.input_tokens, 550), from(isl, 'mean', 'input_config.input.prompt.input_tokens.mean'));
  setWorkload(r, 'output_len', tokens(prompt.output_tokens, null), 'input_config.input.prompt.output_tokens.mean');
  const file = str(input.file) ? 'file' : str(input.custom_dataset_type) ? 'custom_dataset_type' : null;
  setWorkload(
    r,
    'dataset',
    str(input.file) ?? str(input.custom_dataset_type) ?? 'synthetic',
    file ? `input_config.input.${file}` : `AIPerf's default (input_config.input names no dataset)`,
  );
  return models[0] ?? null;
}

/**
 * The workload of AIPerf 0.10's `input_config` (schema_version 1.3): `phases` (warm-up and
 * profiling, each with its load) and `datasets`, written in full. Only what is written is read:
 * no default of another layout is filled in, and what cannot be read is said.
 */
function phasedSettings(r: Reading, c: Obj): string | null {
  const ep = isObj(c.endpoint) ? c.endpoint : {};
  if (typeof ep.type === 'string') setWorkload(r, 'endpoint', ep.type, 'input_config.endpoint.type');
  if (typeof ep.streaming === 'boolean') setWorkload(r, 'streaming', ep.streaming ? 'yes' : 'no', 'input_config.endpoint.streaming');
  const phases = (Array.isArray(c.phases) ? c.phases : []).map((p, i) => ({ p, i })).filter((x): x is { p: Obj; i: number } => isObj(x.p));
  const measured = phases.filter(x => x.p.exclude_from_results !== true);
  if (measured.length !== 1)
    r.problems.push({
      field: 'input_config.phases',
      message: `${measured.length} phases are measured (not excluded from results): the load is not read from them`,
    });
  else {
    const { p, i } = measured[0];
    const at = `input_config.phases.${i}`;
    const conc = num(p, 'concurrency');
    const rate = num(p, 'request_rate') ?? num(p, 'rate');
    if (p.type === 'concurrency' && conc !== null) {
      setWorkload(r, 'max_concurrency', workloadNumber(conc), `${at}.concurrency`);
      setWorkload(r, 'request_rate', 'inf', `${at}.type`);
    } else if (rate !== null) {
      setWorkload(r, 'request_rate', workloadNumber(rate), `${at}.${'request_rate' in p ? 'request_rate' : 'rate'}`);
      if (conc !== null) setWorkload(r, 'max_concurrency', workloadNumber(conc), `${at}.concurrency`);
    } else r.problems.push({ field: `${at}.type`, message: `phase type ${JSON.stringify(p.type)} is not known to this reader: its load is not read` });
    const requests = num(p, 'requests');
    if (requests !== null) setWorkload(r, 'num_prompts', workloadNumber(requests), `${at}.requests`);
  }
  const sets = (Array.isArray(c.datasets) ? c.datasets : []).filter(isObj);
  const main = sets.find(d => d.name === 'main') ?? sets[0];
  if (main) {
    const at = `input_config.datasets.${sets.indexOf(main)}`;
    const name = str(main.dataset) ?? str(main.file) ?? str(main.path) ?? (main.type === 'synthetic' ? 'synthetic' : null);
    if (name) setWorkload(r, 'dataset', name, `${at}.${main.dataset ? 'dataset' : main.file ? 'file' : main.path ? 'path' : 'type'}`);
    else r.problems.push({ field: at, message: 'names no dataset this reader knows: the dataset is not read' });
  }
  const models = isObj(c.models) && Array.isArray(c.models.items) ? c.models.items.filter(isObj).map(m => str(m.name)) : [];
  return models.find((m): m is string => !!m) ?? null;
}

export const AIPERF: Detector = {
  id: 'aiperf',
  schema: z.looseObject({ input_config: z.record(z.string(), z.unknown()) }),
  matches: v =>
    isObj(v.input_config) && (isObj(v.records) || isObj(v.request_throughput) || isObj(v.request_latency) || 'was_cancelled' in v) && !('schema' in v),
  normalise(v: Obj, ctx) {
    const r = newReading();
    const old = isObj(v.records);
    const tags = old ? (v.records as Obj) : v;
    for (const [k, m] of Object.entries(tags)) {
      if (!old && OTHER_KEYS.has(k)) continue;
      readTag(r, k, m, old ? `records.${k}` : k);
    }
    if (old) for (const k of Object.keys(v)) if (!OTHER_KEYS.has(k)) r.problems.push({ field: k, message: 'key not known to this reader: not read' });
    const model = settings(r, v.input_config);
    if (typeof v.aiperf_version === 'string') r.labels.aiperf_version = v.aiperf_version.slice(0, 40);
    const errs = Array.isArray(v.error_summary) ? v.error_summary.filter(isObj) : [];
    const errCount = r.metrics.counts.failed_requests ?? errs.reduce((a, e) => a + (typeof e.count === 'number' ? e.count : 0), 0);
    const firstErr = errs.map(e => (isObj(e.error_details) ? str(e.error_details.message) : null)).find(Boolean) ?? null;
    const ok = r.metrics.counts.successful_requests ?? null;
    const fail = errCount
      ? failures(errCount, ok !== null ? ok + errCount : null, firstErr, old ? 'records.error_request_count' : 'error_request_count')
      : null;
    const start = typeof v.start_time === 'string' ? v.start_time : null;
    return [
      standaloneDraft(ctx, 'aiperf', r, {
        mode: 'serving',
        model,
        timestamp: start,
        failed: fail,
        completed: ok,
        tool: /genai_perf/.test(ctx.path) ? 'genai-perf' : 'aiperf',
        stopped: v.was_cancelled === true ? 'the AIPerf run was cancelled before it finished (was_cancelled: true)' : null,
      }),
    ];
  },
};

/** A line of `profile_export.jsonl`: one request's metrics (display units) and its error. */
export function aiperfRequest(line: unknown): { ttft?: number; tpot?: number; e2el?: number; error?: string | null; warmup: boolean } | null {
  if (!isObj(line) || !isObj(line.metrics) || !isObj(line.metadata)) return null;
  const m = line.metrics;
  const ms = (tag: string) => {
    const x = m[tag];
    if (!isObj(x) || typeof x.value !== 'number') return undefined;
    const f = toMs(x.unit);
    return f === null ? undefined : x.value * f;
  };
  return {
    ttft: ms('time_to_first_token'),
    tpot: ms('inter_token_latency'),
    e2el: ms('request_latency'),
    error: isObj(line.error) ? str(line.error.message) : null,
    warmup: line.metadata.benchmark_phase === 'warmup',
  };
}

/** Samples of the profiling requests of a `profile_export.jsonl` (warm-up and failed requests left out). */
export function aiperfSamples(
  lines: ReturnType<typeof aiperfRequest>[],
  problems: Array<{ field: string; message: string }>,
): Record<string, number[]> | undefined {
  const ok = lines.filter((l): l is NonNullable<typeof l> => !!l && !l.warmup && !l.error);
  const out: Record<string, number[]> = dict();
  for (const [key, k] of [
    ['ttft_mean_ms', 'ttft'],
    ['tpot_mean_ms', 'tpot'],
    ['e2el_mean_ms', 'e2el'],
  ] as const) {
    const xs = valuesInMs(
      ok.map(l => l[k]),
      1,
      k,
      problems,
    );
    if (xs) out[key] = xs;
  }
  return Object.keys(out).length ? out : undefined;
}
