/**
 * Flags vLLM's benchmark scripts accept, with a one-line meaning (and default where useful).
 * Serving clients take no engine arguments (they talk to a running server), which is why
 * `--dtype` or `--tensor-parallel-size` on a serving command fail with "unrecognized arguments".
 * Offline scripts (latency, throughput, prefix caching) take every engine argument.
 */
export type ScriptKind = 'serving' | 'latency' | 'throughput' | 'prefix_caching';
export interface FlagDoc {
  meaning: string;
  default?: string;
  takesValue: boolean;
}

const f = (meaning: string, takesValue = true, def?: string): FlagDoc => ({ meaning, takesValue, ...(def ? { default: def } : {}) });

const SERVING: Record<string, FlagDoc> = {
  '--backend': f('Serving backend of the client (vllm, openai, tgi, …)', true, 'vllm'),
  '--base-url': f('Server base URL instead of host and port'),
  '--host': f('Server host', true, '127.0.0.1'),
  '--port': f('Server port', true, '8000'),
  '--endpoint': f('API endpoint', true, '/v1/completions'),
  '--dataset': f('Path to the ShareGPT dataset (deprecated: use --dataset-path)'),
  '--dataset-name': f('Dataset: sharegpt, burstgpt, sonnet, random, hf', true, 'sharegpt'),
  '--dataset-path': f('Path to the dataset file or HF dataset name'),
  '--max-concurrency': f('Maximum concurrent requests'),
  '--model': f('Name of the model (as served)'),
  '--tokenizer': f('Tokenizer name or path (defaults to the model)'),
  '--tokenizer-mode': f('Tokenizer mode', true, 'auto'),
  '--served-model-name': f('Model name used in the API'),
  '--best-of': f('Generated sequences per prompt, best one returned', true, '1'),
  '--use-beam-search': f('Use beam search', false),
  '--num-prompts': f('Number of prompts to process', true, '1000'),
  '--logprobs': f('Log probabilities per token'),
  '--request-rate': f('Requests per second (inf sends all at once)', true, 'inf'),
  '--burstiness': f('Burstiness of the request arrival process', true, '1.0'),
  '--seed': f('Random seed', true, '0'),
  '--trust-remote-code': f('Trust remote code from Hugging Face', false),
  '--disable-tqdm': f('Disable the progress bar', false),
  '--profile': f('Use the Torch profiler (server must enable it)', false),
  '--save-result': f('Save the benchmark results to a JSON file', false),
  '--save-detailed': f('Keep per-request samples (TTFT, ITL, output lengths) in the result JSON', false),
  '--metadata': f('key=value pairs stored with the result'),
  '--result-dir': f('Directory of the result JSON'),
  '--result-filename': f('File name of the result JSON'),
  '--ignore-eos': f('Ignore EOS so every request generates the full length', false),
  '--percentile-metrics': f('Metrics with percentiles reported', true, 'ttft,tpot,itl'),
  '--metric-percentiles': f('Percentiles reported', true, '99'),
  '--goodput': f('SLOs for goodput, e.g. ttft:100'),
  '--sonnet-input-len': f('Sonnet dataset: input tokens per request', true, '550'),
  '--sonnet-output-len': f('Sonnet dataset: output tokens per request', true, '150'),
  '--sonnet-prefix-len': f('Sonnet dataset: prefix tokens per request', true, '200'),
  '--sharegpt-output-len': f('ShareGPT dataset: override output length'),
  '--random-input-len': f('Random dataset: input tokens per request', true, '1024'),
  '--random-output-len': f('Random dataset: output tokens per request', true, '128'),
  '--random-range-ratio': f('Random dataset: range ratio of lengths', true, '1.0'),
  '--random-prefix-len': f('Random dataset: shared prefix tokens', true, '0'),
  '--hf-subset': f('HF dataset subset'),
  '--hf-split': f('HF dataset split'),
  '--hf-output-len': f('HF dataset: override output length'),
  '--top-p': f('Sampling top-p'),
  '--top-k': f('Sampling top-k'),
  '--min-p': f('Sampling min-p'),
  '--temperature': f('Sampling temperature'),
  '--lora-modules': f('LoRA modules to pick from per request'),
};

const ENGINE: Record<string, FlagDoc> = {
  '--model': f('Model name or path'),
  '--tokenizer': f('Tokenizer name or path'),
  '--dtype': f('Weights and activations dtype (auto, half, float16, bfloat16, float32)', true, 'auto'),
  '--quantization': f('Quantization method (awq, gptq, fp8, …)'),
  '--tensor-parallel-size': f('Number of GPUs for tensor parallelism', true, '1'),
  '-tp': f('Short for --tensor-parallel-size', true, '1'),
  '--pipeline-parallel-size': f('Number of pipeline stages', true, '1'),
  '--max-model-len': f('Model context length (defaults to the model config)'),
  '--gpu-memory-utilization': f('Fraction of GPU memory for the model and KV cache', true, '0.9'),
  '--enforce-eager': f('Disable CUDA graphs', false),
  '--kv-cache-dtype': f('KV cache dtype', true, 'auto'),
  '--trust-remote-code': f('Trust remote code from Hugging Face', false),
  '--load-format': f('Weights format (auto, pt, safetensors, dummy, …)', true, 'auto'),
  '--enable-chunked-prefill': f('Enable chunked prefill (a value may follow in old versions)', false),
  '--no-enable-chunked-prefill': f('Disable chunked prefill', false),
  '--enable-prefix-caching': f('Enable automatic prefix caching', false),
  '--no-enable-prefix-caching': f('Disable automatic prefix caching', false),
  '--use-v2-block-manager': f('Use block manager v2 (removed in later versions)', false),
  '--block-size': f('Token block size'),
  '--swap-space': f('CPU swap space per GPU (GiB)', true, '4'),
  '--seed': f('Random seed', true, '0'),
  '--max-num-seqs': f('Maximum sequences per iteration'),
  '--max-num-batched-tokens': f('Maximum batched tokens per iteration'),
  '--distributed-executor-backend': f('ray or mp'),
  '--speculative-model': f('Draft model for speculative decoding'),
  '--num-speculative-tokens': f('Speculative tokens per step'),
  '--speculative-config': f('Speculative decoding config (JSON)'),
  '--ngram-prompt-lookup-max': f('N-gram speculative decoding window'),
  '--download-dir': f('Download directory for weights'),
  '--device': f('Device type', true, 'auto'),
  '--disable-log-stats': f('Disable statistics logging', false),
  '--compilation-config': f('torch.compile configuration'),
  '--async-engine': f('Use the async engine', false),
};

const LATENCY: Record<string, FlagDoc> = {
  '--input-len': f('Input tokens per request', true, '32'),
  '--output-len': f('Output tokens per request', true, '128'),
  '--batch-size': f('Batch size', true, '8'),
  '--n': f('Sequences per prompt', true, '1'),
  '--use-beam-search': f('Use beam search', false),
  '--num-iters-warmup': f('Warm-up iterations', true, '10'),
  '--num-iters': f('Measured iterations', true, '30'),
  '--profile': f('Profile the generation', false),
  '--profile-result-dir': f('Directory of profile results'),
  '--output-json': f('Write the latency results to this JSON file'),
  '--disable-detokenize': f('Do not detokenize responses', false),
};

const THROUGHPUT: Record<string, FlagDoc> = {
  '--backend': f('vllm, hf or mii', true, 'vllm'),
  '--dataset': f('Path to the dataset (deprecated: use --dataset-path)'),
  '--dataset-name': f('Dataset: sharegpt, random, sonnet, burstgpt, hf', true, 'sharegpt'),
  '--dataset-path': f('Path to the dataset'),
  '--input-len': f('Input tokens per request (random dataset)'),
  '--output-len': f('Output tokens per request'),
  '--n': f('Sequences per prompt', true, '1'),
  '--num-prompts': f('Number of prompts', true, '1000'),
  '--output-json': f('Write the throughput results to this JSON file'),
  '--hf-max-batch-size': f('HF backend maximum batch size'),
  '--async-engine': f('Use the async engine', false),
  '--disable-detokenize': f('Do not detokenize responses', false),
  '--prefix-len': f('Shared prefix tokens (random dataset)'),
  '--random-range-ratio': f('Random dataset length range ratio'),
};

const PREFIX: Record<string, FlagDoc> = {
  '--dataset-path': f('Path to the dataset'),
  '--num-prompts': f('Number of prompts', true, '1'),
  '--repeat-count': f('Times each prompt is repeated', true, '100'),
  '--sort': f('Sort prompts by length', false),
  '--input-length-range': f('Range of input lengths, e.g. 128:256'),
  '--prefix-len': f('Shared prefix tokens'),
  '--output-len': f('Output tokens per request', true, '10'),
};

export const SCRIPT_FLAGS: Record<ScriptKind, Record<string, FlagDoc>> = {
  serving: SERVING,
  latency: { ...ENGINE, ...LATENCY },
  throughput: { ...ENGINE, ...THROUGHPUT },
  prefix_caching: { ...ENGINE, ...PREFIX },
};

/** Engine flags that belong on the server command, not on a serving client. */
export const SERVER_ONLY = new Set(Object.keys(ENGINE).filter(k => !(k in SERVING)));

/**
 * Flags whose meaning depends on the vLLM version. Only facts with a source are listed; the
 * check applies when the version a command runs on is known (e.g. from a result file).
 */
export interface VersionedFlag {
  flag: string;
  since: string;
  note: string;
  severity: 'information' | 'warning';
}
export const VERSIONED_FLAGS: readonly VersionedFlag[] = [
  {
    flag: '--use-v2-block-manager',
    since: '0.6.4',
    severity: 'information',
    note: 'is a deprecated no-op from vLLM 0.6.4 on: block manager v1 was removed and v2 is the default (vLLM #8704)',
  },
];

/** Compares dotted numeric versions (`0.6.4.post2.dev375+g…` → 0.6.4); null if unparsable. */
export function versionAtLeast(version: string, min: string): boolean | null {
  const v = /^(\d+)\.(\d+)\.(\d+)/.exec(version),
    m = /^(\d+)\.(\d+)\.(\d+)/.exec(min);
  if (!v || !m) return null;
  for (let i = 1; i <= 3; i++) if (Number(v[i]) !== Number(m[i])) return Number(v[i]) > Number(m[i]);
  return true;
}
