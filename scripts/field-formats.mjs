// Result files of the field's benchmark tools, generated deterministically in their real formats:
// the keys, their order, types and units as each tool's source writes them (sources named per
// function; facts from the tools' code, no code of theirs). Used by the unit tests and by
// make-demo.mjs (the demo's second campaign). Per-request values are simulated from a seeded
// generator, and every summary figure is computed from them, as the tools do.

/** A small seeded generator (mulberry32): the same seed gives the same files. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The benchmark's wall time: requests in waves of the concurrency (all at once when unbounded, as the client sends them). */
const wallTime = (reqs, concurrency) => {
  const lat = reqs.map(q => q.latency || 0.01);
  const waves = Math.ceil(reqs.length / (concurrency ?? 256));
  return Math.max(...lat) * waves + 0.05;
};
const mean = xs => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const median = xs => percentile(xs, 50);
const std = xs => {
  if (!xs.length) return 0;
  const m = mean(xs);
  return Math.sqrt(mean(xs.map(x => (x - m) ** 2)));
};
/** numpy's default (linear) percentile. */
function percentile(xs, p) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const k = ((s.length - 1) * p) / 100;
  const lo = Math.floor(k),
    hi = Math.min(lo + 1, s.length - 1);
  return s[lo] + (s[hi] - s[lo]) * (k - lo);
}
/** vLLM's percentile key word: 99 → "99", 99.9 → "99.9" (serve.py `process_one_metric`). */
const pWord = p => (Number.isInteger(p) ? String(p) : String(p));

/**
 * Simulated requests of one serving run: TTFT and inter-token gaps in seconds, output lengths,
 * errors ("" for a success). `speed` scales every latency (1 = the reference).
 */
export function simulateRequests({ seed = 1, n = 100, inputLen = 256, outputLen = 64, failed = 0, speed = 1, error = 'Bad Request' } = {}) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    const fail = i >= n - failed;
    if (fail) {
      out.push({ input: inputLen, output: 0, ttft: 0, itls: [], latency: 0, error, text: '' });
      continue;
    }
    const ttft = (0.05 + 0.03 * r()) * speed;
    const itls = Array.from({ length: outputLen - 1 }, () => (0.008 + 0.004 * r()) * speed);
    const latency = ttft + itls.reduce((a, b) => a + b, 0);
    out.push({ input: inputLen, output: outputLen, ttft, itls, latency, error: '', text: 'x'.repeat(8) });
  }
  return out;
}

/** vLLM's statistics over the successful requests, in ms (serve.py `calculate_metrics`). */
function vllmStats(reqs, metrics, percentiles) {
  const ok = reqs.filter(q => q.output > 0);
  const series = {
    ttft: ok.map(q => q.ttft),
    tpot: ok.filter(q => q.output > 1).map(q => (q.latency - q.ttft) / (q.output - 1)),
    itl: ok.flatMap(q => q.itls),
    e2el: ok.map(q => q.latency),
  };
  const o = {};
  for (const m of metrics) {
    const xs = series[m];
    o[`mean_${m}_ms`] = mean(xs) * 1000;
    o[`median_${m}_ms`] = median(xs) * 1000;
    o[`std_${m}_ms`] = std(xs) * 1000;
    for (const p of percentiles) o[`p${pWord(p)}_${m}_ms`] = percentile(xs, p) * 1000;
  }
  return o;
}

/**
 * `vllm bench serve --save-result` (vllm-project/vllm `vllm/benchmarks/serve.py` @ 009e6d4a:
 * setup keys, `--metadata`, traffic keys, then the benchmark's result; without `--save-detailed`
 * the per-request arrays but `latencies` and `queue_times` are removed).
 */
export function vllmServeCli(o = {}) {
  const {
    model = 'facebook/opt-125m',
    numPrompts = 100,
    requestRate = 'inf',
    burstiness = 1.0,
    maxConcurrency = null,
    detailed = false,
    metrics = ['ttft', 'tpot', 'itl'],
    percentiles = [99],
    date = '20260110-120000',
    label = null,
    metadata = {},
  } = o;
  const reqs = simulateRequests({ ...o, n: numPrompts });
  const duration = o.duration ?? wallTime(reqs, maxConcurrency);
  const ok = reqs.filter(q => q.output > 0);
  const totalIn = ok.reduce((a, q) => a + q.input, 0),
    totalOut = ok.reduce((a, q) => a + q.output, 0);
  const res = {
    date,
    endpoint_type: 'openai',
    backend: 'openai',
    label,
    model_id: model,
    tokenizer_id: model,
    num_prompts: numPrompts,
    ...metadata,
    request_rate: requestRate === 'inf' || requestRate === Infinity ? 'inf' : requestRate,
    burstiness,
    max_concurrency: maxConcurrency,
    duration,
    completed: ok.length,
    failed: reqs.length - ok.length,
    total_input_tokens: totalIn,
    total_output_tokens: totalOut,
    request_throughput: ok.length / duration,
    request_goodput: null,
    output_throughput: totalOut / duration,
    total_token_throughput: (totalIn + totalOut) / duration,
    input_lens: reqs.map(q => q.input),
    output_lens: reqs.map(q => q.output),
    ttfts: reqs.map(q => q.ttft),
    itls: reqs.map(q => q.itls),
    latencies: reqs.map(q => q.latency),
    start_times: reqs.map((_, i) => 1000 + i * 0.001),
    queue_times: reqs.map(() => 0),
    generated_texts: reqs.map(q => q.text),
    errors: reqs.map(q => q.error),
    max_output_tokens_per_s: ok.length ? (totalOut / duration) * 1.6 : 0,
    max_concurrent_requests: ok.length ? Math.min(numPrompts, maxConcurrency ?? numPrompts) : 0,
    rtfx: 0,
    ...vllmStats(reqs, metrics, percentiles),
  };
  if (!detailed) for (const k of ['input_lens', 'output_lens', 'start_times', 'ttfts', 'itls', 'generated_texts', 'errors']) delete res[k];
  return res;
}

/**
 * `benchmarks/benchmark_serving.py --save-result`, 2024 (vllm-project/vllm @ 8668d7c0): no
 * burstiness, concurrency or failed count; the per-request arrays always; `mean_e2el_ms` and
 * `median_e2el_ms` swapped by that version's bug.
 */
export function vllmServeScript2024(o = {}) {
  const {
    model = 'facebook/opt-125m',
    numPrompts = 100,
    requestRate = 'inf',
    metrics = ['ttft', 'tpot', 'itl'],
    percentiles = [99],
    date = '20240610-120000',
  } = o;
  const reqs = simulateRequests({ ...o, n: numPrompts });
  const duration = o.duration ?? wallTime(reqs, null);
  const ok = reqs.filter(q => q.output > 0);
  const totalIn = ok.reduce((a, q) => a + q.input, 0),
    totalOut = ok.reduce((a, q) => a + q.output, 0);
  const stats = vllmStats(reqs, metrics, percentiles);
  if ('mean_e2el_ms' in stats) [stats.mean_e2el_ms, stats.median_e2el_ms] = [stats.median_e2el_ms, stats.mean_e2el_ms];
  return {
    date,
    backend: 'vllm',
    model_id: model,
    tokenizer_id: model,
    best_of: 1,
    num_prompts: numPrompts,
    request_rate: requestRate === 'inf' ? 'inf' : requestRate,
    duration,
    completed: ok.length,
    total_input_tokens: totalIn,
    total_output_tokens: totalOut,
    request_throughput: ok.length / duration,
    output_throughput: totalOut / duration,
    total_token_throughput: (totalIn + totalOut) / duration,
    input_lens: reqs.map(q => q.input),
    output_lens: reqs.map(q => q.output),
    ttfts: reqs.map(q => q.ttft),
    itls: reqs.map(q => q.itls),
    generated_texts: reqs.map(q => q.text),
    errors: reqs.map(q => q.error),
    ...stats,
  };
}

/** `benchmarks/benchmark_serving.py`, early 2025 (vllm-project/vllm @ 0049e29c): `"request_goodput:"` with its colon, arrays always kept. */
export function vllmServeScript2025(o = {}) {
  const {
    model = 'facebook/opt-125m',
    numPrompts = 100,
    requestRate = 'inf',
    burstiness = 1.0,
    maxConcurrency = null,
    metrics = ['ttft', 'tpot', 'itl'],
    percentiles = [99],
    date = '20250301-120000',
  } = o;
  const reqs = simulateRequests({ ...o, n: numPrompts });
  const duration = o.duration ?? wallTime(reqs, maxConcurrency);
  const ok = reqs.filter(q => q.output > 0);
  const totalIn = ok.reduce((a, q) => a + q.input, 0),
    totalOut = ok.reduce((a, q) => a + q.output, 0);
  return {
    date,
    backend: 'vllm',
    model_id: model,
    tokenizer_id: model,
    num_prompts: numPrompts,
    request_rate: requestRate === 'inf' ? 'inf' : requestRate,
    burstiness,
    max_concurrency: maxConcurrency,
    duration,
    completed: ok.length,
    total_input_tokens: totalIn,
    total_output_tokens: totalOut,
    request_throughput: ok.length / duration,
    'request_goodput:': null,
    output_throughput: totalOut / duration,
    total_token_throughput: (totalIn + totalOut) / duration,
    input_lens: reqs.map(q => q.input),
    output_lens: reqs.map(q => q.output),
    ttfts: reqs.map(q => q.ttft),
    itls: reqs.map(q => q.itls),
    generated_texts: reqs.map(q => q.text),
    errors: reqs.map(q => q.error),
    ...vllmStats(reqs, metrics, percentiles),
  };
}

/**
 * A number as Python's `repr` of a float writes it (what `json.dumps` prints): the same shortest
 * digits as JavaScript, in exponent form below 1e-4 and from 1e16 (`5e-05`, `1.5e+16`). Integral
 * values print as integers: which of them were Python floats (`100.0`) is not known here.
 */
function pyNumber(x) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return String(x);
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e16) return String(x);
  const [m, e] = x.toExponential().split('e');
  const n = Number(e);
  return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

/**
 * Python's `json.dumps` / `json.dump` with their defaults, as vLLM's `--save-result`, SGLang's
 * `--output-file` and GuideLLM's `benchmarks.json` are written: `", "` and `": "` between items,
 * all but printable ASCII escaped (`ensure_ascii`), `NaN` / `Infinity` as bare tokens, floats as Python prints them.
 */
export function pyJson(v) {
  const str = t => JSON.stringify(t).replace(/[\u007f-\uffff]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const out = x => {
    if (x === null || x === undefined) return 'null';
    if (typeof x === 'number') return pyNumber(x);
    if (typeof x === 'string') return str(x);
    if (typeof x === 'boolean') return String(x);
    if (Array.isArray(x)) return `[${x.map(out).join(', ')}]`;
    const items = [];
    for (const [k, y] of Object.entries(x)) if (y !== undefined) items.push(`${str(k)}: ${out(y)}`);
    return `{${items.join(', ')}}`;
  };
  return out(v);
}

/**
 * One line of SGLang's `bench_serving --output-file` (sgl-project/sglang
 * `python/sglang/bench_serving.py` @ 0229689b): arguments, results, statistics (e2e p90 and p99,
 * ITL p95), peak figures; `--output-details` merges the per-request arrays at the top level.
 */
export function sglangLine(o = {}) {
  const {
    numPrompts = 100,
    requestRate = Infinity,
    maxConcurrency = null,
    inputLen = 1024,
    outputLen = 128,
    rangeRatio = 1.0,
    details = false,
    tag = null,
    backend = 'sglang',
  } = o;
  const reqs = simulateRequests({ ...o, n: numPrompts, inputLen, outputLen });
  const duration = o.duration ?? wallTime(reqs, maxConcurrency);
  const ok = reqs.filter(q => q.output > 0);
  const totalIn = ok.reduce((a, q) => a + q.input, 0),
    totalOut = ok.reduce((a, q) => a + q.output, 0);
  const ms = xs => xs.map(x => x * 1000);
  const e2e = ms(ok.map(q => q.latency)),
    ttft = ms(ok.map(q => q.ttft)),
    tpot = ms(ok.map(q => (q.latency - q.ttft) / (q.output - 1))),
    itl = ms(ok.flatMap(q => q.itls));
  const res = {
    tag,
    backend,
    dataset_name: 'random',
    request_rate: requestRate,
    max_concurrency: maxConcurrency,
    sharegpt_output_len: null,
    random_input_len: inputLen,
    random_output_len: outputLen,
    random_range_ratio: rangeRatio,
    mooncake_slowdown_factor: 1.0,
    mooncake_num_rounds: 1,
    mooncake_block_size: 128,
    server_info: null,
    duration,
    completed: ok.length,
    total_input_tokens: totalIn,
    total_input_text_tokens: totalIn,
    total_input_vision_tokens: 0,
    total_output_tokens: totalOut,
    total_output_tokens_retokenized: totalOut,
    request_throughput: ok.length / duration,
    input_throughput: totalIn / duration,
    output_throughput: totalOut / duration,
    total_throughput: (totalIn + totalOut) / duration,
    mean_e2e_latency_ms: mean(e2e),
    median_e2e_latency_ms: median(e2e),
    std_e2e_latency_ms: std(e2e),
    p90_e2e_latency_ms: percentile(e2e, 90),
    p99_e2e_latency_ms: percentile(e2e, 99),
    mean_ttft_ms: mean(ttft),
    median_ttft_ms: median(ttft),
    std_ttft_ms: std(ttft),
    p99_ttft_ms: percentile(ttft, 99),
    mean_tpot_ms: mean(tpot),
    median_tpot_ms: median(tpot),
    std_tpot_ms: std(tpot),
    p99_tpot_ms: percentile(tpot, 99),
    mean_itl_ms: mean(itl),
    median_itl_ms: median(itl),
    std_itl_ms: std(itl),
    p95_itl_ms: percentile(itl, 95),
    p99_itl_ms: percentile(itl, 99),
    concurrency: e2e.reduce((a, b) => a + b, 0) / 1000 / duration,
    accept_length: null,
    max_output_tokens_per_s: ok.length ? (totalOut / duration) * 1.5 : 0,
    max_concurrent_requests: ok.length ? numPrompts : 0,
  };
  if (details)
    Object.assign(res, {
      input_lens: reqs.map(q => q.input),
      output_lens: reqs.map(q => q.output),
      ttfts: reqs.map(q => q.ttft),
      itls: reqs.map(q => q.itls),
      generated_texts: reqs.map(q => q.text),
      errors: reqs.map(q => q.error),
    });
  return res;
}

/** `vllm bench throughput --output-json` (vllm-project/vllm `vllm/benchmarks/throughput.py` @ 1a91bc2d), `indent=4`. */
export function vllmThroughput({ numRequests = 1000, elapsed = 50, inputLen = 1024, outputLen = 128 } = {}) {
  const total = numRequests * (inputLen + outputLen);
  return {
    elapsed_time: elapsed,
    num_requests: numRequests,
    total_num_tokens: total,
    requests_per_second: numRequests / elapsed,
    tokens_per_second: total / elapsed,
  };
}

/** `vllm bench latency --output-json` (vllm-project/vllm `vllm/benchmarks/latency.py` @ 00cae075): seconds, percentile keys as strings. */
export function vllmLatency({ seed = 3, iters = 30, base = 1.2, std: withStd = true } = {}) {
  const r = rng(seed);
  const latencies = Array.from({ length: iters }, () => base * (1 + 0.02 * (r() - 0.5)));
  const percentiles = Object.fromEntries([10, 25, 50, 75, 90, 99].map(p => [String(p), percentile(latencies, p)]));
  return { avg_latency: mean(latencies), ...(withStd ? { std_latency: std(latencies) } : {}), latencies, percentiles };
}

/** A GuideLLM distribution summary (src/guidellm/schemas/statistics.py @ ee7a7745). */
function distribution(xs) {
  const pct = { p001: 0.1, p01: 1, p05: 5, p10: 10, p25: 25, p50: 50, p75: 75, p90: 90, p95: 95, p99: 99, p999: 99.9 };
  const m = mean(xs);
  return {
    mean: m,
    median: percentile(xs, 50),
    mode: xs.length ? xs[0] : 0,
    variance: std(xs) ** 2,
    std_dev: std(xs),
    min: xs.length ? Math.min(...xs) : 0,
    max: xs.length ? Math.max(...xs) : 0,
    count: xs.length,
    total_sum: xs.reduce((a, b) => a + b, 0),
    percentiles: Object.fromEntries(Object.entries(pct).map(([k, p]) => [k, percentile(xs, p)])),
    pdf: null,
  };
}
const statusDist = (ok, bad = []) => ({
  successful: distribution(ok),
  errored: distribution(bad),
  incomplete: distribution([]),
  total: distribution([...ok, ...bad]),
});

/**
 * GuideLLM's v2 `benchmarks.json` (vllm-project/guidellm `src/guidellm/benchmark/schemas/report.py`
 * @ ee7a7745, v0.7+): `metadata.version` 2, the scenario under `config`, one benchmark per rate of
 * a sweep with its strategy, request totals, metrics (status distributions) and requests.
 */
export function guidellmReport({
  seed = 5,
  model = 'facebook/opt-125m',
  rates = [2, 4, 8],
  requests = 40,
  promptTokens = 256,
  outputTokens = 128,
  errored = 0,
  speed = 1,
} = {}) {
  const benchmarks = rates.map((rate, i) => {
    const reqs = simulateRequests({
      seed: seed + i,
      n: requests,
      inputLen: promptTokens,
      outputLen: outputTokens,
      failed: errored,
      speed: speed * (1 + i * 0.2),
      error: 'HTTPStatusError: 503 Service Unavailable',
    });
    const ok = reqs.filter(q => q.output > 0),
      bad = reqs.filter(q => q.output === 0);
    const start = 1767000000 + i * 100;
    const duration = requests / rate;
    const one = q => ({
      type_: 'generative_request_stats',
      request_id: `r${i}`,
      response_id: null,
      request_args: null,
      output: q.text,
      info: { request_id: `r${i}`, status: q.error ? 'errored' : 'completed', error: q.error || null, timings: {} },
      input_metrics: { text_tokens: q.input },
      output_metrics: { text_tokens: q.output },
      request_start_time: start,
      request_end_time: start + q.latency,
      request_latency: q.error ? null : q.latency,
      prompt_tokens: q.input,
      output_tokens: q.output,
      total_tokens: q.input + q.output,
      time_to_first_token_ms: q.error ? null : q.ttft * 1000,
      time_per_output_token_ms: q.error ? null : (q.latency * 1000) / q.output,
      inter_token_latency_ms: q.error ? null : ((q.latency - q.ttft) * 1000) / (q.output - 1),
      tokens_per_second: q.error ? null : (q.input + q.output) / q.latency,
      output_tokens_per_second: q.error ? null : q.output / q.latency,
    });
    return {
      type_: 'generative_benchmark',
      config: {
        id_: `b${i}`,
        run_id: 'run-1',
        run_index: i,
        strategy: { type_: 'constant', rate, max_concurrency: null, rampup_duration: 0, worker_count: 4 },
        constraints: {},
        sample_size: null,
        warmup: { percent: null, value: null, mode: 'prefer_duration' },
        cooldown: { percent: null, value: null, mode: 'prefer_duration' },
        prefer_response_metrics: true,
        profile: { kind: 'sweep', sweep_size: rates.length },
        requests: { kind: 'pytorch' },
        backend: { kind: 'openai_http', target: 'http://localhost:8000', model, request_format: '/v1/completions' },
        environment: {},
      },
      scheduler_state: { successful_requests: ok.length, errored_requests: bad.length },
      scheduler_metrics: { requests_made: { successful: ok.length, errored: bad.length, incomplete: 0, total: reqs.length } },
      metrics: {
        request_totals: { successful: ok.length, errored: bad.length, incomplete: 0, total: reqs.length },
        requests_per_second: statusDist([ok.length / duration]),
        request_concurrency: statusDist([rate * mean(ok.map(q => q.latency))]),
        request_latency: statusDist(
          ok.map(q => q.latency),
          bad.map(() => 0),
        ),
        prompt_token_count: statusDist(ok.map(q => q.input)),
        output_token_count: statusDist(ok.map(q => q.output)),
        total_token_count: statusDist(ok.map(q => q.input + q.output)),
        time_to_first_token_ms: statusDist(ok.map(q => q.ttft * 1000)),
        time_per_output_token_ms: statusDist(ok.map(q => (q.latency * 1000) / q.output)),
        inter_token_latency_ms: statusDist(ok.map(q => ((q.latency - q.ttft) * 1000) / (q.output - 1))),
        output_tokens_per_second: statusDist([ok.reduce((a, q) => a + q.output, 0) / duration]),
        tokens_per_second: statusDist([ok.reduce((a, q) => a + q.input + q.output, 0) / duration]),
        prompt_tokens_per_second: statusDist([ok.reduce((a, q) => a + q.input, 0) / duration]),
      },
      requests: { successful: ok.map(one), errored: bad.map(one), incomplete: [], total: null },
      start_time: start,
      end_time: start + duration,
      duration,
      warmup_duration: 0,
      cooldown_duration: 0,
    };
  });
  return {
    metadata: { version: 2, guidellm_version: '0.7.3', python_version: '3.12.3', platform: 'Linux' },
    config: {
      metadata: { labels: {} },
      spec: {
        backend: { kind: 'openai_http', target: 'http://localhost:8000', model, request_format: '/v1/completions' },
        profile: { kind: 'sweep', sweep_size: rates.length },
        data: [{ kind: 'synthetic_text', prompt_tokens: promptTokens, output_tokens: outputTokens }],
        constraints: [{ kind: 'max_requests', count: requests }],
      },
      benchmarks: [null],
    },
    benchmarks,
  };
}

/**
 * AIPerf's `profile_export_aiperf.json` (ai-dynamo/aiperf `aiperf/exporters/json_exporter.py`
 * @ db4f6397: one top-level key per metric tag, `{unit, avg, p1 … p99, min, max, std}` in display
 * units, `input_config` with what the user set) and its per-request `profile_export.jsonl`.
 */
export function aiperfExport({
  seed = 7,
  model = 'facebook/opt-125m',
  concurrency = 8,
  requestCount = 50,
  isl = 550,
  osl = 128,
  errors = 0,
  old = false,
  /** AIPerf 0.10's export (schema_version 1.3): the whole config as `phases` and `datasets`, HTTP trace and identity keys. */
  v010 = false,
  speed = 1,
} = {}) {
  const reqs = simulateRequests({ seed, n: requestCount, inputLen: isl, outputLen: osl, failed: errors, error: 'Internal Server Error', speed });
  const ok = reqs.filter(q => q.output > 0);
  // Closed loop: `concurrency` requests in flight, so the run lasts its requests' latencies over the concurrency.
  const duration = Math.round((reqs.reduce((a, q) => a + (q.latency || 0.01), 0) / concurrency) * 1000) / 1000;
  const stat = (xs, unit) => {
    const o = { unit, avg: mean(xs) };
    for (const p of [1, 5, 10, 25, 50, 75, 90, 95, 99]) if (!(old && p === 10)) o[`p${p}`] = percentile(xs, p);
    o.min = Math.min(...xs);
    o.max = Math.max(...xs);
    o.std = std(xs);
    return o;
  };
  const tags = {
    request_throughput: { unit: 'requests/sec', avg: ok.length / duration },
    request_latency: stat(
      ok.map(q => q.latency * 1000),
      'ms',
    ),
    [old ? 'ttft' : 'time_to_first_token']: stat(
      ok.map(q => q.ttft * 1000),
      'ms',
    ),
    inter_token_latency: stat(
      ok.map(q => ((q.latency - q.ttft) * 1000) / (q.output - 1)),
      'ms',
    ),
    output_token_throughput: { unit: 'tokens/sec', avg: ok.reduce((a, q) => a + q.output, 0) / duration },
    output_sequence_length: stat(
      ok.map(q => q.output),
      'tokens',
    ),
    input_sequence_length: stat(
      ok.map(q => q.input),
      'tokens',
    ),
    request_count: { unit: 'requests', avg: ok.length },
    ...(errors ? { error_request_count: { unit: 'requests', avg: errors } } : {}),
    benchmark_duration: { unit: 'sec', avg: duration },
    total_output_tokens: { unit: 'tokens', avg: ok.reduce((a, q) => a + q.output, 0) },
    total_isl: { unit: 'tokens', avg: ok.reduce((a, q) => a + q.input, 0) },
  };
  const body = {
    input_config: {
      endpoint: { model_names: [model], type: 'completions', streaming: true },
      loadgen: { concurrency, request_count: requestCount },
      input: { prompt: { input_tokens: { mean: isl }, output_tokens: { mean: osl } } },
      cli_command: `aiperf profile -m ${model} --endpoint-type completions --streaming --concurrency ${concurrency} --request-count ${requestCount} --isl ${isl} --osl ${osl}`,
    },
    was_cancelled: false,
    error_summary: errors ? [{ error_details: { code: 500, type: 'Internal Server Error', message: 'Internal Server Error' }, count: errors }] : [],
    start_time: '2026-01-12T10:00:00.000000',
    end_time: `2026-01-12T10:00:${String(Math.min(59, Math.floor(duration))).padStart(2, '0')}.000000`,
  };
  if (v010) {
    // As AIPerf 0.10.0 writes it (key for key, seen in its users' exports of 2026): identity first,
    // the config in full (warm-up and profiling phases, datasets, models), the client's HTTP trace.
    const out = ok.reduce((a, q) => a + q.output, 0);
    Object.assign(tags, {
      time_to_first_output_token: tags.time_to_first_token,
      http_req_duration: tags.request_latency,
      http_req_waiting: tags.time_to_first_token,
      http_req_connection_reused: { unit: 'requests', avg: ok.length },
      total_token_throughput: { unit: 'tokens/sec', avg: (out + ok.reduce((a, q) => a + q.input, 0)) / duration },
      e2e_output_token_throughput: stat(
        ok.map(q => q.output / q.latency),
        'tokens/sec/user',
      ),
      prefill_throughput_per_user: stat(
        ok.map(q => q.input / q.ttft),
        'tokens/sec/user',
      ),
      osl_mismatch_count: { unit: 'requests', avg: 0 },
    });
    const json = {
      schema_version: '1.3',
      aiperf_version: '0.10.0',
      benchmark_id: 'b504c61e9d17',
      ...tags,
      telemetry_data: null,
      input_config: {
        models: { items: [{ name: model }] },
        endpoint: { urls: ['http://localhost:8000'], type: 'chat', streaming: true },
        datasets: [{ name: 'main', type: 'public', dataset: 'sharegpt', entries: requestCount, random_seed: 42 }],
        phases: [
          { name: 'warmup', type: 'concurrency', exclude_from_results: true, requests: concurrency, concurrency },
          { name: 'profiling', type: 'concurrency', requests: requestCount, concurrency },
        ],
        artifacts: { dir: '/work/results', records: ['jsonl'], auto_plot: false, plot_required: false },
        tokenizer: { name: model },
      },
      run_info: {
        benchmark_id: 'b504c61e9d17',
        random_seed: 42,
        trial: 0,
        cli_command: `aiperf profile --model '${model}' --endpoint-type 'chat' --streaming --concurrency ${concurrency} --request-count ${requestCount}`,
      },
      was_cancelled: false,
      error_summary: body.error_summary,
      start_time: body.start_time,
      end_time: body.end_time,
    };
    return { json, jsonl: '' };
  }
  const json = old
    ? { records: Object.fromEntries(Object.entries(tags).map(([k, v]) => [k, { tag: k, header: k, ...v, count: ok.length }])), ...body }
    : { ...tags, ...body };
  const records = reqs.map((q, i) =>
    JSON.stringify({
      metadata: {
        session_num: i,
        x_request_id: `req-${i}`,
        request_start_ns: 1767000000000000000 + i,
        request_end_ns: 1767000000000000000 + i + 1,
        worker_id: 'w0',
        record_processor_id: 'p0',
        benchmark_phase: 'profiling',
        was_cancelled: false,
      },
      metrics: q.error
        ? { error_isl: { value: q.input, unit: 'tokens' } }
        : {
            request_latency: { value: q.latency * 1000, unit: 'ms' },
            time_to_first_token: { value: q.ttft * 1000, unit: 'ms' },
            inter_token_latency: { value: ((q.latency - q.ttft) * 1000) / (q.output - 1), unit: 'ms' },
            output_sequence_length: { value: q.output, unit: 'tokens' },
            input_sequence_length: { value: q.input, unit: 'tokens' },
          },
      error: q.error ? { code: 500, type: 'Internal Server Error', message: q.error } : null,
    }),
  );
  return { json, jsonl: records.join('\n') };
}
