import { z } from 'zod';
import { percentileKey, valuesInMs } from '../../../metrics';
import { isObj, type Detector, type Obj } from '../common';
import { addMetric, measuredNumber, newReading, readKeys, setWorkload, type KeyTable } from './reader';
import { standaloneDraft } from './draft';

/**
 * vLLM's offline benchmarks' `--output-json` (sources: vllm-project/vllm
 * `vllm/benchmarks/throughput.py` @ 1a91bc2d, `vllm/benchmarks/latency.py` @ 00cae075, and the old
 * `benchmarks/benchmark_{throughput,latency}.py` @ 2f2ea061 / @ 00db0209, which write the same keys).
 */

const THROUGHPUT_KEYS: KeyTable = {
  elapsed_time: { metric: 'elapsed_time_s' },
  num_requests: { count: 'num_prompts' },
  total_num_tokens: { count: 'total_tokens' },
  requests_per_second: { metric: 'request_throughput_req_s' },
  // Total (prompt + output) tokens over the elapsed time; output tokens/s is only printed.
  tokens_per_second: { metric: 'total_throughput_tok_s' },
};

export const VLLM_THROUGHPUT: Detector = {
  id: 'vllm-throughput',
  schema: z.looseObject({ elapsed_time: z.number(), requests_per_second: z.number(), tokens_per_second: z.number() }),
  matches: v => 'elapsed_time' in v && 'requests_per_second' in v && 'tokens_per_second' in v && !('schema' in v),
  normalise(v: Obj, ctx) {
    const r = newReading();
    readKeys(r, v, THROUGHPUT_KEYS, []);
    if (typeof v.num_requests === 'number') setWorkload(r, 'num_prompts', String(v.num_requests), 'num_requests');
    return [
      standaloneDraft(ctx, 'vllm-throughput', r, {
        mode: 'throughput',
        model: null,
        timestamp: null,
        failed: null,
        completed: null,
        tool: 'vLLM throughput benchmark',
        durationS: typeof v.elapsed_time === 'number' ? v.elapsed_time : null,
      }),
    ];
  },
};

const LATENCY_KEYS: KeyTable = {
  avg_latency: { metric: 'latency_avg_ms', scale: 1000 },
  std_latency: { ignore: 'standard deviation: the spread, not a comparable figure' },
  latencies: { handled: 'one latency per measured iteration (samples, and the iteration count)' },
  percentiles: { handled: 'latency percentiles in seconds, keyed "10" … "99"' },
};

export const VLLM_LATENCY: Detector = {
  id: 'vllm-latency',
  schema: z.looseObject({ avg_latency: z.number(), latencies: z.array(z.unknown()), percentiles: z.record(z.string(), z.unknown()) }),
  matches: v => 'avg_latency' in v && 'latencies' in v && 'percentiles' in v && !('schema' in v),
  normalise(v: Obj, ctx) {
    const r = newReading();
    readKeys(r, v, LATENCY_KEYS, []);
    if (isObj(v.percentiles))
      for (const [k, x] of Object.entries(v.percentiles)) {
        const field = `percentiles.${k}`;
        const p = Number(k);
        if (!/^\d{1,2}(\.\d+)?$/.test(k) || !(p > 0 && p < 100)) {
          r.problems.push({ field, message: 'is not a percentile: not read' });
          continue;
        }
        const n = measuredNumber(r, field, x);
        if (n !== null) addMetric(r, field, percentileKey('latency', p), n * 1000);
      }
    const latencies = Array.isArray(v.latencies) ? v.latencies : [];
    setWorkload(r, 'num_iters', latencies.length ? String(latencies.length) : null, 'latencies');
    const samples = valuesInMs(latencies, 1000, 'latencies', r.problems);
    return [
      standaloneDraft(ctx, 'vllm-latency', r, {
        mode: 'latency',
        model: null,
        timestamp: null,
        failed: null,
        completed: null,
        tool: 'vLLM latency benchmark',
        ...(samples ? { samples: { latency_avg_ms: samples } } : {}),
      }),
    ];
  },
};
