import { createWriteStream } from 'node:fs';

/**
 * A realistic vLLM server + benchmark log of `bytes` size (engine INFO lines, warnings, tqdm bars,
 * docker-pull chatter, echoed fix lines), ending with `tail` — a failure or a result block.
 */
const BODY = [
  'INFO 01-02 15:28:20 [__init__.py:256] Automatically detected platform cuda.',
  'INFO 01-02 15:28:25 [api_server.py:981] vLLM API server version 0.7.4.dev450+g270a5da4',
  "INFO 01-02 15:28:25 [api_server.py:982] args: Namespace(subparser='serve', model_tag='meta-llama/Meta-Llama-3-8B-Instruct', host=None, port=8000)",
  'INFO 01-02 15:28:33 [config.py:549] This model supports multiple tasks: {\'generate\', \'embed\'}. Defaulting to \'generate\'.',
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

export async function writeSynthLog(path: string, bytes: number, tail: string[] = FAILURE_TAIL): Promise<{ lines: number; tailLine: number }> {
  const out = createWriteStream(path);
  const block = BODY.join('\n') + '\n';
  const blockLines = BODY.length;
  const per = 4 * 1024 * 1024;
  const big = block.repeat(Math.max(1, Math.floor(per / block.length)));
  const bigLines = blockLines * Math.max(1, Math.floor(per / block.length));
  let written = 0, lines = 0;
  const write = (s: string) => new Promise<void>(res => { if (out.write(s)) res(); else out.once('drain', () => res()); });
  while (written + big.length < bytes) { await write(big); written += big.length; lines += bigLines; }
  while (written + block.length < bytes) { await write(block); written += block.length; lines += blockLines; }
  const tailLine = lines + 1;
  await write(tail.join('\n') + '\n');
  lines += tail.length;
  await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
  return { lines, tailLine };
}
