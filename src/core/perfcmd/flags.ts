/**
 * Flags the benchmark clients accept, with a one-line meaning and the default, per tool and form:
 * vLLM's old scripts (`benchmarks/benchmark_*.py`, 2024 to their removal in #24411), the
 * `vllm bench serve|throughput|latency` CLI (vllm-project/vllm `vllm/benchmarks/serve.py`,
 * `throughput.py`, `latency.py`, `datasets/datasets.py`), and SGLang's `bench_serving`. Serving
 * clients take no engine arguments (they talk to a running server), which is why `--dtype` or
 * `--tensor-parallel-size` on a serving command fail with "unrecognized arguments". Offline
 * benchmarks take every engine argument.
 */
export type ScriptKind = 'serving' | 'latency' | 'throughput' | 'prefix_caching';
/** Which client: vLLM's old script, the `vllm bench` CLI, or SGLang's `bench_serving`. */
export type ScriptForm = 'script' | 'cli' | 'sglang';
export interface FlagDoc {
  meaning: string;
  default?: string;
  takesValue: boolean;
}

const f = (meaning: string, takesValue = true, def?: string): FlagDoc => ({ meaning, takesValue, ...(def ? { default: def } : {}) });

/** What every vLLM serving client shares (old script and CLI); defaults that differ are set per form below. */
const SERVING_COMMON: Record<string, FlagDoc> = {
  '--base-url': f('Server base URL instead of host and port'),
  '--host': f('Server host', true, '127.0.0.1'),
  '--port': f('Server port', true, '8000'),
  '--endpoint': f('API endpoint', true, '/v1/completions'),
  '--dataset-path': f('Path to the dataset file or HF dataset name'),
  '--max-concurrency': f('Maximum concurrent requests'),
  '--model': f('Name of the model (as served)'),
  '--tokenizer': f('Tokenizer name or path (defaults to the model)'),
  '--tokenizer-mode': f('Tokenizer mode', true, 'auto'),
  '--served-model-name': f('Model name used in the API'),
  '--use-beam-search': f('Use beam search', false),
  '--num-prompts': f('Number of prompts to process', true, '1000'),
  '--logprobs': f('Log probabilities per token'),
  '--request-rate': f('Requests per second (inf sends all at once)', true, 'inf'),
  '--burstiness': f('Burstiness of the request arrival process (1 is Poisson; inf is constant)', true, '1.0'),
  '--seed': f('Random seed', true, '0'),
  '--trust-remote-code': f('Trust remote code from Hugging Face', false),
  '--disable-tqdm': f('Disable the progress bar', false),
  '--profile': f('Use the Torch profiler (server must enable it)', false),
  '--save-result': f('Save the benchmark results to a JSON file', false),
  '--save-detailed': f('Keep per-request samples (TTFT, ITL, output lengths, errors) in the result JSON', false),
  '--append-result': f('Append the result to the file as one JSON line instead of overwriting it', false),
  '--metadata': f('key=value pairs stored with the result'),
  '--result-dir': f('Directory of the result JSON'),
  '--result-filename': f('File name of the result JSON'),
  '--ignore-eos': f('Ignore EOS so every request generates the full length', false),
  '--percentile-metrics': f('Metrics with percentiles reported', true, 'ttft,tpot,itl'),
  '--metric-percentiles': f('Percentiles reported', true, '99'),
  '--goodput': f('SLOs for goodput, e.g. ttft:100 tpot:50 (ms)'),
  '--sonnet-input-len': f('Sonnet dataset: input tokens per request', true, '550'),
  '--sonnet-output-len': f('Sonnet dataset: output tokens per request', true, '150'),
  '--sonnet-prefix-len': f('Sonnet dataset: prefix tokens per request', true, '200'),
  '--sharegpt-output-len': f('ShareGPT dataset: override output length'),
  '--random-input-len': f('Random dataset: input tokens per request', true, '1024'),
  '--random-output-len': f('Random dataset: output tokens per request', true, '128'),
  '--random-prefix-len': f('Random dataset: shared prefix tokens', true, '0'),
  '--custom-output-len': f('Custom dataset: output tokens per request (-1: the dataset’s)', true, '256'),
  '--custom-skip-chat-template': f('Custom dataset: do not apply the chat template', false),
  '--hf-subset': f('HF dataset subset'),
  '--hf-split': f('HF dataset split'),
  '--hf-output-len': f('HF dataset: override output length'),
  '--top-p': f('Sampling top-p'),
  '--top-k': f('Sampling top-k'),
  '--min-p': f('Sampling min-p'),
  '--lora-modules': f('LoRA modules to pick from per request'),
  '--ramp-up-strategy': f('Ramp the request rate up: linear or exponential (then --request-rate stays inf)'),
  '--ramp-up-start-rps': f('Ramp-up: starting requests per second'),
  '--ramp-up-end-rps': f('Ramp-up: final requests per second'),
  '--no-stream': f('Do not stream the responses', false),
};

/** `benchmarks/benchmark_serving.py`, 2024 to mid-2025 (vllm-project/vllm @ 8668d7c0, @ 0049e29c). */
const SERVING_SCRIPT: Record<string, FlagDoc> = {
  ...SERVING_COMMON,
  '--backend': f('Serving backend of the client (vllm, openai, openai-chat, tgi, …)', true, 'vllm'),
  '--dataset': f('Path to the ShareGPT dataset (deprecated: use --dataset-path)'),
  '--dataset-name': f('Dataset: sharegpt, burstgpt, sonnet, random, hf, custom', true, 'sharegpt'),
  '--best-of': f('Generated sequences per prompt, best one returned (2024 versions)', true, '1'),
  '--random-range-ratio': f(
    'Random dataset: range of lengths. 2024 scripts draw from [L·r, L] (default 1.0, fixed lengths); from 2025 from [L·(1−r), L·(1+r)] (default 0.0, fixed lengths)',
    true,
    '0.0',
  ),
  '--temperature': f('Sampling temperature (the script sends 0, greedy, unless set)', true, '0'),
};

/** `vllm bench serve` (vllm-project/vllm `vllm/benchmarks/serve.py` @ 009e6d4a, `datasets/datasets.py` @ 003cf029). */
const SERVING_CLI: Record<string, FlagDoc> = {
  ...SERVING_COMMON,
  '--backend': f('Client backend: openai, openai-chat, vllm, openai-audio, …-embeddings, vllm-pooling, vllm-rerank', true, 'openai'),
  '--label': f('Label of the result (and its file name prefix; defaults to the backend)'),
  '--dataset-name': f('Dataset: random, sharegpt, sonnet, burstgpt, hf, custom, random-mm, random-rerank, prefix_repetition, spec_bench, …', true, 'random'),
  '--input-len': f('Input tokens per request: the random dataset’s --random-input-len'),
  '--output-len': f('Output tokens per request: sets --random-output-len, --sharegpt-output-len, --hf-output-len and --custom-output-len'),
  '--random-range-ratio': f('Random dataset: lengths drawn from [L·(1−r), L·(1+r)], 0 ≤ r < 1 (or {"input": r1, "output": r2})', true, '0.0'),
  '--random-batch-size': f('Random dataset: inputs per request (embeddings)', true, '1'),
  '--temperature': f('Sampling temperature (not sent unless set: the server’s default applies; before 2026 the client sent 0)'),
  '--frequency-penalty': f('Sampling frequency penalty'),
  '--presence-penalty': f('Sampling presence penalty'),
  '--repetition-penalty': f('Sampling repetition penalty'),
  '--num-warmups': f('Warm-up requests before the measured run', true, '0'),
  '--ready-check-timeout-sec': f('Wait this long for the endpoint to answer a test request (0 skips the check)', true, '0'),
  '--request-id-prefix': f('Prefix of the request ids'),
  '--header': f('Extra HTTP headers KEY=VALUE'),
  '--probe-request-rate': f('Rate of latency probes sent beside the load', true, '0.0'),
  '--lora-assignment': f('How LoRA modules are assigned to requests: random or round-robin', true, 'random'),
  '--chat-template-kwargs': f('Chat template arguments (JSON)'),
  '--extra-body': f('Extra request body fields (JSON)'),
  '--skip-tokenizer-init': f('Do not load a tokenizer (no TTFT/TPOT/ITL then)', false),
  '--insecure': f('Do not verify TLS', false),
  '--plot-timeline': f('Plot the request timeline', false),
  '--timeline-itl-thresholds': f('ITL thresholds of the timeline plot (ms)', true, '25,50'),
  '--plot-dataset-stats': f('Plot dataset statistics', false),
  '--no-oversample': f('Do not oversample a small dataset', false),
  '--skip-chat-template': f('Do not apply the chat template', false),
  '--enable-multimodal-chat': f('Multimodal chat requests', false),
  '--disable-shuffle': f('Keep the dataset order', false),
  '--spec-bench-output-len': f('SpecBench dataset: output tokens', true, '256'),
  '--spec-bench-category': f('SpecBench dataset: category'),
  '--hf-name': f('HF dataset name (when the path is a local copy)'),
  '--prefix-repetition-prefix-len': f('Prefix-repetition dataset: prefix tokens', true, '256'),
  '--prefix-repetition-suffix-len': f('Prefix-repetition dataset: suffix tokens', true, '256'),
  '--prefix-repetition-num-prefixes': f('Prefix-repetition dataset: distinct prefixes', true, '10'),
  '--prefix-repetition-output-len': f('Prefix-repetition dataset: output tokens', true, '128'),
  '--self-timed': f('timed_trace dataset: the dataset’s timestamps set the arrivals', false),
  '--no-self-timed': f('timed_trace dataset: ignore its timestamps', false),
};

/** SGLang `python -m sglang.bench_serving` (sgl-project/sglang `python/sglang/bench_serving.py` @ 0229689b). */
const SERVING_SGLANG: Record<string, FlagDoc> = {
  '--backend': f('Client backend: sglang, sglang-oai, sglang-oai-chat, vllm, vllm-chat, lmdeploy, trt, …', true, 'sglang'),
  '--base-url': f('Server base URL instead of host and port'),
  '--host': f('Server host', true, '0.0.0.0'),
  '--port': f('Server port (30000 for sglang, 8000 for vllm …)'),
  '--dataset-name': f('Dataset: sharegpt, random, random-ids, generated-shared-prefix, mmmu, image, …', true, 'sharegpt'),
  '--dataset-path': f('Path to the dataset'),
  '--model': f('Model name (defaults to the first the server lists)'),
  '--served-model-name': f('Model name used in the API'),
  '--tokenizer': f('Tokenizer name or path (defaults to the model)'),
  '--num-prompts': f('Number of prompts to process', true, '1000'),
  '--sharegpt-output-len': f('ShareGPT dataset: override output length'),
  '--sharegpt-context-len': f('ShareGPT dataset: drop prompts longer than this'),
  '--random-input-len': f('Random dataset: input tokens per request', true, '1024'),
  '--random-output-len': f('Random dataset: output tokens per request (128 in 2024 versions)', true, '1024'),
  '--random-range-ratio': f('Random dataset: lengths drawn from [L·r, L] (0 draws from 1 to L)', true, '0.0'),
  '--request-rate': f('Requests per second (inf sends all at once)', true, 'inf'),
  '--max-concurrency': f('Maximum concurrent requests'),
  '--output-file': f('JSONL file the result is appended to'),
  '--output-details': f('Keep per-request samples in the result', false),
  '--disable-tqdm': f('Disable the progress bar', false),
  '--disable-stream': f('Do not stream the responses', false),
  '--return-logprob': f('Return log probabilities', false),
  '--seed': f('Random seed', true, '1'),
  '--disable-ignore-eos': f('Stop at EOS (ignore_eos is on by default)', false),
  '--extra-request-body': f('Extra request body fields (JSON)'),
  '--apply-chat-template': f('Apply the chat template', false),
  '--profile': f('Use the Torch profiler (server must enable it)', false),
  '--lora-name': f('LoRA adapters to use'),
  '--prompt-suffix': f('Suffix added to every prompt'),
  '--pd-separated': f('Prefill/decode disaggregated server', false),
  '--flush-cache': f('Flush the server cache before the run', false),
  '--warmup-requests': f('Warm-up requests', true, '1'),
  '--tokenize-prompt': f('Send token ids instead of text', false),
  '--tag': f('A label stored with the result'),
  '--ready-check-timeout-sec': f('Wait this long for the server', true, '60'),
  '--gsp-num-groups': f('Generated-shared-prefix dataset: groups', true, '64'),
  '--gsp-prompts-per-group': f('Generated-shared-prefix dataset: prompts per group', true, '16'),
  '--gsp-system-prompt-len': f('Generated-shared-prefix dataset: system prompt tokens', true, '2048'),
  '--gsp-question-len': f('Generated-shared-prefix dataset: question tokens', true, '128'),
  '--gsp-output-len': f('Generated-shared-prefix dataset: output tokens', true, '256'),
  '--gsp-range-ratio': f('Generated-shared-prefix dataset: range ratio', true, '1.0'),
  '--header': f('Extra HTTP headers'),
};

const ENGINE: Record<string, FlagDoc> = {
  '--model': f('Model name or path'),
  '--tokenizer': f('Tokenizer name or path'),
  '--tokenizer-mode': f('Tokenizer mode', true, 'auto'),
  '--revision': f('Model revision'),
  '--dtype': f('Weights and activations dtype (auto, half, float16, bfloat16, float32)', true, 'auto'),
  '--quantization': f('Quantization method (awq, gptq, fp8, …)'),
  '--tensor-parallel-size': f('Number of GPUs for tensor parallelism', true, '1'),
  '-tp': f('Short for --tensor-parallel-size', true, '1'),
  '--pipeline-parallel-size': f('Number of pipeline stages', true, '1'),
  '--data-parallel-size': f('Data-parallel replicas', true, '1'),
  '--enable-expert-parallel': f('Expert parallelism for MoE layers', false),
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
  '--cpu-offload-gb': f('CPU offload per GPU (GiB)', true, '0'),
  '--seed': f('Random seed', true, '0'),
  '--max-num-seqs': f('Maximum sequences per iteration'),
  '--max-num-batched-tokens': f('Maximum batched tokens per iteration'),
  '--max-seq-len-to-capture': f('Longest sequence covered by CUDA graphs'),
  '--distributed-executor-backend': f('ray or mp'),
  '--speculative-model': f('Draft model for speculative decoding'),
  '--num-speculative-tokens': f('Speculative tokens per step'),
  '--speculative-config': f('Speculative decoding config (JSON)'),
  '--ngram-prompt-lookup-max': f('N-gram speculative decoding window'),
  '--download-dir': f('Download directory for weights'),
  '--device': f('Device type', true, 'auto'),
  '--disable-log-stats': f('Disable statistics logging', false),
  '--compilation-config': f('torch.compile configuration'),
  '-O': f('Optimisation level of torch.compile'),
  '--async-engine': f('Use the async engine', false),
  '--enable-lora': f('Serve LoRA adapters', false),
  '--max-loras': f('LoRA adapters in one batch'),
  '--max-lora-rank': f('Largest LoRA rank'),
  '--hf-overrides': f('Overrides of the Hugging Face config (JSON)'),
  '--rope-scaling': f('RoPE scaling config (JSON)'),
  '--rope-theta': f('RoPE theta'),
  '--disable-custom-all-reduce': f('Use NCCL all-reduce only', false),
  '--disable-sliding-window': f('Disable sliding-window attention', false),
  '--num-scheduler-steps': f('Multi-step scheduling steps'),
  '--scheduling-policy': f('fcfs or priority', true, 'fcfs'),
  '--async-scheduling': f('Overlap scheduling with execution', false),
  '--limit-mm-per-prompt': f('Multimodal items per prompt (JSON)'),
  '--mm-processor-kwargs': f('Multimodal processor arguments (JSON)'),
  '--guided-decoding-backend': f('Guided decoding backend'),
  '--model-impl': f('Model implementation: auto, vllm or transformers', true, 'auto'),
  '--served-model-name': f('Model name used in the API'),
  '--max-logprobs': f('Most log probabilities returned', true, '20'),
  '--kv-transfer-config': f('KV transfer config (JSON)'),
  '--override-generation-config': f('Overrides of the generation config (JSON)'),
  '--generation-config': f('Where the generation config comes from (auto, vllm, a folder)', true, 'auto'),
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

const THROUGHPUT_SCRIPT: Record<string, FlagDoc> = {
  '--backend': f('vllm, hf or mii', true, 'vllm'),
  '--dataset': f('Path to the ShareGPT dataset (deprecated: use --dataset-path)'),
  '--dataset-name': f('Dataset: sharegpt, random, sonnet, burstgpt, hf', true, 'sharegpt'),
  '--dataset-path': f('Path to the dataset'),
  '--input-len': f('Input tokens per request (random dataset)'),
  '--output-len': f('Output tokens per request'),
  '--n': f('Sequences per prompt', true, '1'),
  '--num-prompts': f('Number of prompts', true, '1000'),
  '--output-json': f('Write the throughput results to this JSON file'),
  '--hf-max-batch-size': f('HF backend maximum batch size'),
  '--async-engine': f('Use the async engine', false),
  '--disable-frontend-multiprocessing': f('Run the frontend in the engine’s process', false),
  '--disable-detokenize': f('Do not detokenize responses', false),
  '--lora-path': f('LoRA adapter to use'),
  '--prefix-len': f('Shared prefix tokens (random dataset)', true, '0'),
  '--random-range-ratio': f('Random dataset length range ratio', true, '0.0'),
  '--hf-subset': f('HF dataset subset'),
  '--hf-split': f('HF dataset split'),
  '--profile': f('Profile the generation', false),
};

/** `vllm bench throughput` (vllm-project/vllm `vllm/benchmarks/throughput.py` @ 1a91bc2d): without a dataset path the dataset is random and --input-len is needed. */
const THROUGHPUT_CLI: Record<string, FlagDoc> = {
  ...THROUGHPUT_SCRIPT,
  '--backend': f('vllm, hf, mii or vllm-chat', true, 'vllm'),
  '--dataset-name': f('Dataset: sharegpt, random, sonnet, burstgpt, hf, prefix_repetition (random when no dataset path is given)', true, 'sharegpt'),
  '--prefix-repetition-prefix-len': f('Prefix-repetition dataset: prefix tokens'),
  '--prefix-repetition-suffix-len': f('Prefix-repetition dataset: suffix tokens'),
  '--prefix-repetition-num-prefixes': f('Prefix-repetition dataset: distinct prefixes'),
  '--prefix-repetition-output-len': f('Prefix-repetition dataset: output tokens'),
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

/** The old scripts' flags, by benchmark kind. */
export const SCRIPT_FLAGS: Record<ScriptKind, Record<string, FlagDoc>> = {
  serving: SERVING_SCRIPT,
  latency: { ...ENGINE, ...LATENCY },
  throughput: { ...ENGINE, ...THROUGHPUT_SCRIPT },
  prefix_caching: { ...ENGINE, ...PREFIX },
};

const CLI_FLAGS: Partial<Record<ScriptKind, Record<string, FlagDoc>>> = {
  serving: SERVING_CLI,
  latency: { ...ENGINE, ...LATENCY },
  throughput: { ...ENGINE, ...THROUGHPUT_CLI },
};

/** The flags of one client (by kind and form), or null when the tool has no table here. */
export function flagTable(kind: ScriptKind | null, form: ScriptForm | null): Record<string, FlagDoc> | null {
  if (!kind) return null;
  if (form === 'sglang') return kind === 'serving' ? SERVING_SGLANG : null;
  return (form === 'cli' ? CLI_FLAGS[kind] : SCRIPT_FLAGS[kind]) ?? null;
}

/** Engine flags that belong on the server command, not on a serving client. */
export const SERVER_ONLY = new Set(Object.keys(ENGINE).filter(k => !(k in SERVING_SCRIPT) && !(k in SERVING_CLI)));

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
