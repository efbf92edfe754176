import { createWriteStream } from 'node:fs';

/**
 * A realistic vLLM server + benchmark log of `bytes` size (engine INFO lines, warnings, tqdm bars,
 * docker-pull chatter, echoed fix lines), ending with `tail` — a failure or a result block.
 */
const BODY = [
  'INFO 01-02 15:28:20 [__init__.py:256] Automatically detected platform cuda.',
  'INFO 01-02 15:28:25 [api_server.py:981] vLLM API server version 0.7.4.dev450+g270a5da4',
  "INFO 01-02 15:28:25 [api_server.py:982] args: Namespace(subparser='serve', model_tag='meta-llama/Meta-Llama-3-8B-Instruct', host=None, port=8000)",
  "INFO 01-02 15:28:33 [config.py:549] This model supports multiple tasks: {'generate', 'embed'}. Defaulting to 'generate'.",
  'WARNING 01-02 15:28:33 [arg_utils.py:1187] Chunked prefill is enabled by default for models with max_model_len > 32K.',
  'INFO 01-02 15:28:40 [cuda.py:230] Using Flash Attention backend.',
  'Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:01<00:01,  1.52it/s]',
  'INFO 01-02 15:28:52 [model_runner.py:1115] Loading model weights took 14.9889 GB',
  'Capturing CUDA graph shapes:  52%|█████▏    | 35/67 [00:12<00:11,  2.84it/s]',
  'INFO 01-02 15:29:10 [metrics.py:453] Avg prompt throughput: 11184.4 tokens/s, Avg generation throughput: 1193.5 tokens/s, Running: 32 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 4.1%, CPU KV cache usage: 0.0%.',
  'INFO:     127.0.0.1:51234 - "POST /v1/completions HTTP/1.1" 200 OK',
  'Fixing rope_scaling compatibility...',
  'a3f1c2d4e5b6: Downloading  145.2MB/1.2GB',
];
export const FAILURE_TAIL = [
  'Traceback (most recent call last):',
  '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 230, in determine_num_available_blocks',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.2 GiB is free.',
  'SERVER_CRASHED',
];
export const RESULT_TAIL = [
  '============ Serving Benchmark Result ============',
  'Successful requests:                     100',
  'Benchmark duration (s):                  12.34',
  'Request throughput (req/s):              8.10',
  'Output token throughput (tok/s):         1036.80',
  'Mean TTFT (ms):                          41.20',
  'Median TTFT (ms):                        39.80',
  'P99 TTFT (ms):                           77.00',
  'Mean TPOT (ms):                          9.81',
  '==================================================',
  'BENCHMARK_DONE',
];

/** The synthetic log as byte chunks that end on line boundaries (no disk needed). */
export function* synthChunks(bytes: number, tail: string[] = FAILURE_TAIL): Generator<Buffer, { lines: number; tailLine: number }> {
  const block = BODY.join('\n') + '\n';
  const reps = Math.max(1, Math.floor((4 * 1024 * 1024) / block.length));
  const big = Buffer.from(block.repeat(reps));
  const small = Buffer.from(block);
  const end = Buffer.from(tail.join('\n') + '\n');
  let written = 0,
    lines = 0;
  while (written + big.length + end.length < bytes) {
    yield big;
    written += big.length;
    lines += BODY.length * reps;
  }
  // Whole blocks until the log, tail included, is at least `bytes` long.
  while (written + end.length < bytes) {
    yield small;
    written += small.length;
    lines += BODY.length;
  }
  const tailLine = lines + 1;
  yield end;
  return { lines: lines + tail.length, tailLine };
}

export async function writeSynthLog(path: string, bytes: number, tail: string[] = FAILURE_TAIL): Promise<{ lines: number; tailLine: number }> {
  const out = createWriteStream(path);
  const write = (b: Buffer) =>
    new Promise<void>(res => {
      if (out.write(b)) res();
      else out.once('drain', () => res());
    });
  const gen = synthChunks(bytes, tail);
  let r = gen.next();
  while (!r.done) {
    await write(r.value);
    r = gen.next();
  }
  await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
  return r.value;
}
