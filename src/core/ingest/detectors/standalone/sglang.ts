import { z } from 'zod';
import { lengthRange } from '../../../model';
import { percentileKey, readSamples, type LatencyFamily } from '../../../metrics';
import { isObj, str, type Detector, type Obj } from '../common';
import { countTexts, failures, firstText, newReading, readKeys, setWorkload, workloadOf, type KeyPattern, type KeyTable, type Reading } from './reader';
import { standaloneDraft } from './draft';

/**
 * SGLang's `python -m sglang.bench_serving --output-file` (sources: sgl-project/sglang
 * `python/sglang/bench_serving.py` @ 50a61368 (2024), @ 0033168f, @ 0229689b; the refactor's
 * `python/sglang/benchmark/metrics.py` @ 6e48df33): one JSON object appended per run (JSONL),
 * Python's `Infinity` for an unbounded request rate, `--output-details` per-request arrays at the
 * top level (or under `details` in the refactor). There is no `failed` key: failures are counted
 * from the per-request errors when the file has them.
 */

const FAMILY: Record<string, LatencyFamily> = { e2e_latency: 'e2el', ttft: 'ttft', tpot: 'tpot', itl: 'itl' };

const KEYS: KeyTable = {
  backend: { handled: 'the client backend (workload endpoint)' },
  dataset_name: { workload: 'dataset' },
  request_rate: { handled: 'request rate (workload; Infinity is all at once)' },
  max_concurrency: { handled: 'maximum concurrency (workload)' },
  sharegpt_output_len: { handled: 'ShareGPT output length (workload, sharegpt only)' },
  random_input_len: { handled: 'random dataset lengths (workload, random only)' },
  random_output_len: { handled: 'random dataset lengths (workload, random only)' },
  random_range_ratio: { handled: 'random dataset lengths (workload, random only)' },
  mooncake_slowdown_factor: { ignore: 'Mooncake trace replay settings (the mooncake datasets only)' },
  mooncake_num_rounds: { ignore: 'Mooncake trace replay settings (the mooncake datasets only)' },
  mooncake_block_size: { ignore: 'Mooncake trace replay settings (the mooncake datasets only)' },
  tag: { handled: 'a free label (run labels)' },
  server_info: { handled: "the server's own configuration as it reported it (its model_path is the run's model)" },
  duration: { count: 'benchmark_duration_s' },
  completed: { count: 'successful_requests' },
  total_input_tokens: { count: 'total_input_tokens' },
  total_input: { count: 'total_input_tokens' },
  total_output_tokens: { count: 'total_output_tokens' },
  total_output: { count: 'total_output_tokens' },
  total_output_tokens_retokenized: { ignore: 'output tokens counted again by the client tokenizer (the server count is compared)' },
  total_output_retokenized: { ignore: 'output tokens counted again by the client tokenizer (the server count is compared)' },
  total_input_text_tokens: { ignore: 'the text part of the input tokens (the total is compared)' },
  total_input_vision_tokens: { ignore: 'the image part of the input tokens (the total is compared)' },
  request_throughput: { metric: 'request_throughput_req_s' },
  input_throughput: { metric: 'input_throughput_tok_s' },
  output_throughput: { metric: 'output_throughput_tok_s' },
  total_throughput: { metric: 'total_throughput_tok_s' },
  output_throughput_retokenized: { ignore: 'output throughput by the client tokenizer (the server count is compared)' },
  total_throughput_retokenized: { ignore: 'total throughput by the client tokenizer (the server count is compared)' },
  max_itl_ms: { ignore: "the longest gap of any one request: an outlier, not the distribution's" },
  concurrency: { ignore: 'the concurrency the load reached: a result of the workload, not a figure to win on' },
  accept_length: { ignore: "speculative decoding's accepted length, from the server" },
  max_output_tokens_per_s: { metric: 'peak_output_throughput_tok_s' },
  max_concurrent_requests: { count: 'peak_concurrent_requests' },
  input_lens: { handled: 'per-request input lengths (failures)' },
  output_lens: { handled: 'per-request output lengths (samples)' },
  ttfts: { handled: 'per-request TTFT (samples)' },
  itls: { handled: 'per-request inter-token gaps (samples)' },
  generated_texts: { ignore: 'the generated texts' },
  errors: { handled: 'per-request errors (failed requests)' },
  details: { handled: 'per-request arrays of the refactored client' },
};

const PATTERNS: readonly KeyPattern[] = [
  [/^(mean|median)_(e2e_latency|ttft|tpot|itl)_ms$/, m => ({ metric: `${FAMILY[m[2]]}_${m[1]}_ms` })],
  [/^std_(e2e_latency|ttft|tpot|itl)_ms$/, () => ({ ignore: 'standard deviation: the spread, not a comparable figure' })],
  [/^p(\d{1,2}(?:\.\d{1,3})?)_(e2e_latency|ttft|tpot|itl)_ms$/, m => ({ metric: percentileKey(FAMILY[m[2]], Number(m[1])) })],
];

function projectOfBackend(backend: string | null): string | null {
  if (!backend) return null;
  if (backend.startsWith('sglang')) return 'sglang';
  if (backend.startsWith('vllm')) return 'vllm';
  return null;
}

/** SGLang's backends and the API they call. */
function endpointOf(backend: string): string {
  if (/^sglang(-native)?$/.test(backend)) return 'sglang /generate';
  if (/-chat$/.test(backend)) return '/v1/chat/completions';
  if (/^(sglang-oai|vllm|lmdeploy|trt|truss)$/.test(backend)) return '/v1/completions';
  return backend;
}

function settings(r: Reading, v: Obj): void {
  const backend = str(v.backend);
  if (backend) setWorkload(r, 'endpoint', endpointOf(backend), 'backend');
  setWorkload(r, 'request_rate', workloadOf(r, 'request_rate', v.request_rate), 'request_rate');
  if ('max_concurrency' in v)
    setWorkload(r, 'max_concurrency', v.max_concurrency === null ? 'none' : workloadOf(r, 'max_concurrency', v.max_concurrency), 'max_concurrency');
  const ds = str(v.dataset_name) ?? '';
  const num = (k: string) => (typeof v[k] === 'number' && Number.isFinite(v[k] as number) ? (v[k] as number) : null);
  if (ds.startsWith('random')) {
    // Lengths are drawn from [max(int(L·r), 1), L] (input) and [int(L·r), L] (output) (bench_serving.py @ 0229689b).
    const r0 = num('random_range_ratio') ?? 0;
    const li = num('random_input_len'),
      lo = num('random_output_len');
    if (li !== null) setWorkload(r, 'input_len', lengthRange(Math.max(Math.floor(li * r0), 1), li), 'random_input_len');
    if (lo !== null) setWorkload(r, 'output_len', lengthRange(Math.floor(lo * r0), lo), 'random_output_len');
  } else if (ds === 'sharegpt' && num('sharegpt_output_len') !== null) setWorkload(r, 'output_len', String(num('sharegpt_output_len')), 'sharegpt_output_len');
  if (typeof v.total_input_tokens === 'number') setWorkload(r, 'input_tokens', String(v.total_input_tokens), 'total_input_tokens');
  else if (typeof v.total_input === 'number') setWorkload(r, 'input_tokens', String(v.total_input), 'total_input');
  if (typeof v.tag === 'string') r.labels.tag = v.tag.slice(0, 200);
}

export const SGLANG_SERVE: Detector = {
  id: 'sglang-serve',
  schema: z.looseObject({ backend: z.string(), dataset_name: z.string().optional(), completed: z.number(), duration: z.number() }),
  // The 2024 client wrote no dataset_name (sgl-project/sglang bench_serving.py of July 2024: backend,
  // request_rate, token totals, e2e/TTFT/ITL means and medians, output throughput, random_* lengths).
  matches: v =>
    'backend' in v && ('dataset_name' in v || 'median_e2e_latency_ms' in v) && 'completed' in v && 'duration' in v && !('model_id' in v) && !('schema' in v),
  normalise(v: Obj, ctx) {
    const r = newReading();
    readKeys(r, v, KEYS, PATTERNS);
    settings(r, v);
    if (!('dataset_name' in v))
      r.problems.push({
        field: 'dataset_name',
        message: 'not written by this SGLang client (2024): the dataset and its lengths are not known, so not compared',
      });
    const info = isObj(v.server_info) ? v.server_info : null;
    const model = info ? (str(info.model_path) ?? str(info.served_model_name)) : null;
    const details = isObj(v.details) ? v.details : v;
    const prefix = isObj(v.details) ? 'details.' : '';
    const s = readSamples(details, prefix);
    r.problems.push(...s.problems);
    const completed = typeof v.completed === 'number' ? v.completed : 0;
    const errs = countTexts(details.errors);
    const sent = Array.isArray(details.input_lens) ? details.input_lens.length : null;
    const fail =
      errs > 0
        ? failures(errs, sent, firstText(details.errors), `${prefix}errors`)
        : sent !== null && sent > completed
          ? failures(sent - completed, sent, null, `${prefix}input_lens`)
          : null;
    return [
      Object.assign(
        standaloneDraft(ctx, 'sglang-serve', r, {
          mode: 'serving',
          model,
          timestamp: null,
          samples: s.samples,
          failed: fail,
          completed,
          tool: 'sglang.bench_serving',
        }),
        // The project is the server measured: SGLang's client also benchmarks vLLM (`--backend vllm`).
        { project: projectOfBackend(str(v.backend)) },
      ),
    ];
  },
};
