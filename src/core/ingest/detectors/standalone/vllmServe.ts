import { z } from 'zod';
import { percentileKey, readSamples, type LatencyFamily } from '../../../metrics';
import { str, type Detector, type Obj } from '../common';
import {
  addMetric,
  countTexts,
  failures,
  firstText,
  measuredNumber,
  newReading,
  readKeys,
  setWorkload,
  workloadOf,
  vllmDate,
  type KeyPattern,
  type KeyTable,
  type Reading,
} from './reader';
import { standaloneDraft } from './draft';

/**
 * vLLM's serving benchmark result, both generations (sources: vllm-project/vllm
 * `benchmarks/benchmark_serving.py` @ 8668d7c0 (2024) and @ 0049e29c (early 2025);
 * `vllm/benchmarks/serve.py` @ 009e6d4a (`vllm bench serve`)):
 * `--save-result` writes one JSON object; `--append-result` one compact object per line.
 */

/** vLLM's metric names in `--percentile-metrics` → our latency families. */
const FAMILY: Record<string, LatencyFamily> = {
  ttft: 'ttft',
  tpot: 'tpot',
  itl: 'itl',
  e2el: 'e2el',
  client_queue_time: 'client_queue',
  e2el_including_client_queue: 'e2el_incl_queue',
};
const FAMILY_NAMES = Object.keys(FAMILY)
  .sort((a, b) => b.length - a.length)
  .join('|');

/** Keys of every generation, and what each is (the one place that lists the deliberately ignored). */
const KEYS: KeyTable = {
  date: { handled: 'when the run ended (the run timestamp)' },
  endpoint_type: { handled: 'the client backend (workload endpoint)' },
  backend: { handled: 'the client backend (workload endpoint)' },
  label: { handled: 'a free label (run labels)' },
  // `vllm bench sweep serve` adds its repeat index (and the swept server and client settings, which stay findings: they are what differs).
  run_number: { handled: 'the repeat index of a `vllm bench sweep` run (run labels)' },
  model_id: { handled: 'the model (run model)' },
  tokenizer_id: { ignore: 'the tokenizer: the model decides it unless overridden, and it does not change what is measured' },
  best_of: { ignore: 'sequences per prompt of the 2024 client; always 1 unless set, and beam search is gone' },
  use_beam_search: { ignore: 'beam search of the 2024 client (removed from vLLM)' },
  num_prompts: { workload: 'num_prompts' },
  request_rate: { workload: 'request_rate' },
  burstiness: { handled: 'arrival burstiness (workload, when the rate is finite)' },
  max_concurrency: { handled: 'maximum concurrency (workload)' },
  ramp_up_strategy: { handled: 'request-rate ramp-up (workload)' },
  ramp_up_start_rps: { handled: 'request-rate ramp-up (workload)' },
  ramp_up_end_rps: { handled: 'request-rate ramp-up (workload)' },
  rps_change_events: { ignore: 'the ramp-up steps as they happened (the ramp-up settings are the workload)' },
  duration: { count: 'benchmark_duration_s' },
  completed: { count: 'successful_requests' },
  failed: { count: 'failed_requests' },
  total_input_tokens: { count: 'total_input_tokens' },
  total_output_tokens: { count: 'total_output_tokens' },
  total_input_sequences: { ignore: 'pooling benchmarks: input sequences (the request count is compared)' },
  input_sequence_throughput: { ignore: 'pooling benchmarks: sequences per second (request throughput is compared)' },
  // The 2024 script wrote input tokens per second too (later folded into total_token_throughput).
  input_throughput: { metric: 'input_throughput_tok_s' },
  request_throughput: { metric: 'request_throughput_req_s' },
  request_goodput: { metric: 'request_goodput_req_s' },
  // The early-2025 script spelled it with a colon (vllm-project/vllm @ 0049e29c).
  'request_goodput:': { metric: 'request_goodput_req_s' },
  output_throughput: { metric: 'output_throughput_tok_s' },
  total_token_throughput: { metric: 'total_throughput_tok_s' },
  max_output_tokens_per_s: { metric: 'peak_output_throughput_tok_s' },
  max_concurrent_requests: { count: 'peak_concurrent_requests' },
  rtfx: { handled: 'audio only: inverse real-time factor (0 for text)' },
  input_lens: { handled: 'per-request input lengths (failures)' },
  output_lens: { handled: 'per-request output lengths (samples)' },
  ttfts: { handled: 'per-request TTFT (samples)' },
  itls: { handled: 'per-request inter-token gaps (samples)' },
  latencies: { handled: 'per-request end-to-end latency (samples)' },
  start_times: { ignore: 'per-request send times on the client clock (perf_counter)' },
  queue_times: { ignore: 'per-request client queueing (its mean and percentiles are compared when reported)' },
  generated_texts: { ignore: 'the generated texts' },
  errors: { handled: 'per-request errors (failed requests)' },
  probe_completed: { ignore: 'probe requests: a latency check beside the load, not the load' },
  probe_failed: { ignore: 'probe requests: a latency check beside the load, not the load' },
  probe_median_e2el_ms: { ignore: 'probe requests: a latency check beside the load, not the load' },
  probe_p99_e2el_ms: { ignore: 'probe requests: a latency check beside the load, not the load' },
  probe_max_e2el_ms: { ignore: 'probe requests: a latency check beside the load, not the load' },
};

const PATTERNS: readonly KeyPattern[] = [
  [new RegExp(`^(mean|median)_(${FAMILY_NAMES})_ms$`), m => ({ metric: `${FAMILY[m[2]]}_${m[1]}_ms` })],
  [new RegExp(`^std_(${FAMILY_NAMES})_ms$`), () => ({ ignore: 'standard deviation: the spread, not a comparable figure' })],
  [new RegExp(`^p(\\d{1,2}(?:\\.\\d{1,3})?)_(${FAMILY_NAMES})_ms$`), m => ({ metric: percentileKey(FAMILY[m[2]], Number(m[1])) })],
  [/^spec_decode_/, () => ({ ignore: 'speculative-decoding statistics of the server, not the benchmark' })],
  [/^diffusion_/, () => ({ ignore: 'diffusion-model decoding statistics, not the benchmark' })],
];

/** Both `vllm`/`openai` backends of the client call the completions API (endpoint_request_func). */
export function endpointOfBackend(backend: string): string {
  if (/^(vllm|openai)$/.test(backend)) return '/v1/completions';
  if (/^(vllm|openai)-chat$/.test(backend)) return '/v1/chat/completions';
  return backend;
}

const SHAPE = z.looseObject({
  model_id: z.string().nullish(),
  num_prompts: z.number().nullish(),
  completed: z.number().optional(),
  duration: z.number().optional(),
});

/** Which generation wrote the file: the CLI adds keys the old script never had. */
function form(v: Obj): 'cli' | 'script' {
  return 'endpoint_type' in v || 'label' in v || 'failed' in v || 'max_output_tokens_per_s' in v || 'max_concurrent_requests' in v ? 'cli' : 'script';
}

function settings(r: Reading, v: Obj): void {
  const backend = str(v.backend) ?? str(v.endpoint_type);
  if (backend) setWorkload(r, 'endpoint', endpointOfBackend(backend), 'backend' in v ? 'backend' : 'endpoint_type');
  const rate = workloadOf(r, 'request_rate', v.request_rate);
  if (rate !== 'inf' && v.burstiness !== undefined) setWorkload(r, 'burstiness', workloadOf(r, 'burstiness', v.burstiness), 'burstiness');
  if ('max_concurrency' in v)
    setWorkload(r, 'max_concurrency', v.max_concurrency === null ? 'none' : workloadOf(r, 'max_concurrency', v.max_concurrency), 'max_concurrency');
  if (typeof v.ramp_up_strategy === 'string')
    setWorkload(r, 'ramp_up', `${v.ramp_up_strategy} ${String(v.ramp_up_start_rps)}→${String(v.ramp_up_end_rps)} req/s`, 'ramp_up_strategy');
  const rtfx = measuredNumber(r, 'rtfx', v.rtfx);
  if (rtfx) addMetric(r, 'rtfx', 'rtfx', rtfx);
  if (typeof v.total_input_tokens === 'number' && Number.isFinite(v.total_input_tokens))
    setWorkload(r, 'input_tokens', String(v.total_input_tokens), 'total_input_tokens');
  if (typeof v.label === 'string') r.labels.label = v.label.slice(0, 200);
  if (typeof v.run_number === 'number') r.labels.run_number = String(v.run_number);
}

export const VLLM_SERVE: Detector = {
  id: 'vllm-serve',
  schema: SHAPE,
  // Copies trimmed to the latency figures (CI pipelines that publish a result without its counts) are read too, saying what is missing.
  matches: v =>
    'model_id' in v &&
    (('completed' in v && 'duration' in v) || 'mean_ttft_ms' in v || 'median_ttft_ms' in v) &&
    ('num_prompts' in v || 'request_throughput' in v) &&
    !('schema' in v),
  normalise(v: Obj, ctx) {
    const r = newReading();
    // `--metadata KEY=VALUE` entries sit at the top level as strings: labels, not unknown keys.
    readKeys(r, v, KEYS, PATTERNS, '', (key, val) => {
      if (typeof val !== 'string') return false;
      r.labels[key] = val.slice(0, 200);
      return true;
    });
    settings(r, v);
    // The 2024 script computed mean_e2el_ms with np.median and median_e2el_ms with np.mean (@ 8668d7c0).
    const m = r.metrics.metrics;
    if ('best_of' in v && 'e2el_mean_ms' in m && 'e2el_median_ms' in m) {
      [m.e2el_mean_ms, m.e2el_median_ms] = [m.e2el_median_ms, m.e2el_mean_ms];
      for (const f of r.metrics.fields) if (f.canonical === 'e2el_mean_ms' || f.canonical === 'e2el_median_ms') f.value = m[f.canonical];
      r.problems.push({
        field: 'mean_e2el_ms',
        message: 'the 2024 client wrote the median as mean_e2el_ms and the mean as median_e2el_ms: read the other way round',
      });
    }
    const s = readSamples(v);
    r.problems.push(...s.problems);
    const completed = typeof v.completed === 'number' ? v.completed : null;
    if (completed === null)
      r.problems.push({ field: 'completed', message: 'not in the file (a trimmed copy of the result?): how many requests completed or failed is not known' });
    const errs = countTexts(v.errors);
    const fail =
      typeof v.failed === 'number' && v.failed > 0
        ? failures(v.failed, completed !== null ? completed + v.failed : null, firstText(v.errors), 'failed')
        : errs > 0
          ? failures(errs, Array.isArray(v.errors) ? v.errors.length : null, firstText(v.errors), 'errors')
          : typeof v.num_prompts === 'number' && completed !== null && v.failed === undefined && !Array.isArray(v.errors) && completed < v.num_prompts
            ? failures(v.num_prompts - completed, v.num_prompts, null, 'completed')
            : null;
    return [
      standaloneDraft(ctx, 'vllm-serve', r, {
        mode: 'serving',
        model: str(v.model_id),
        timestamp: vllmDate(v.date),
        samples: s.samples,
        failed: fail,
        completed,
        tool: form(v) === 'cli' ? 'vllm bench serve' : 'benchmark_serving.py',
      }),
    ];
  },
};
