// Builds realistic logs around a failure's decisive lines: the surroundings each tool really prints
// (vLLM V0 and V1 servers with their child processes, SGLang, pip, CMake/nvcc, docker, the
// benchmark client, a benchmark runner), written here in our own words from their formats.

/** A deterministic clock: each call advances a few seconds. */
export function clock(start = '11-02 14:03:11') {
  let [md, hms] = start.split(' ');
  let t = hms.split(':').reduce((a, b) => a * 60 + Number(b), 0);
  return (step = 1) => {
    t += step;
    const h = String(Math.floor(t / 3600) % 24).padStart(2, '0');
    const m = String(Math.floor(t / 60) % 60).padStart(2, '0');
    const s = String(t % 60).padStart(2, '0');
    return `${md} ${h}:${m}:${s}`;
  };
}

/** A Python traceback: frames as [file, line, function, code], then the exception line. */
export function traceback(frames, exception, prefix = '') {
  const out = [`${prefix}Traceback (most recent call last):`];
  for (const [file, line, fn, code] of frames) {
    out.push(`${prefix}  File "${file}", line ${line}, in ${fn}`);
    if (code) out.push(`${prefix}    ${code}`);
  }
  for (const l of [].concat(exception)) out.push(`${prefix}${l}`);
  return out;
}

const SITE = '/usr/local/lib/python3.12/dist-packages';
export const site = p => `${SITE}/${p}`;

/** Frames of a V1 engine core start-up (EngineCore process). */
export const ENGINE_FRAMES = [
  [site('vllm/v1/engine/core.py'), 612, 'run_engine_core', 'raise e'],
  [site('vllm/v1/engine/core.py'), 599, 'run_engine_core', 'engine_core = EngineCoreProc(*args, **kwargs)'],
  [site('vllm/v1/engine/core.py'), 440, '__init__', 'super().__init__(vllm_config, executor_class, log_stats,'],
  [site('vllm/v1/engine/core.py'), 76, '__init__', 'self.model_executor = executor_class(vllm_config)'],
  [site('vllm/executor/executor_base.py'), 53, '__init__', 'self._init_executor()'],
  [site('vllm/executor/uniproc_executor.py'), 48, '_init_executor', 'self.collective_rpc("load_model")'],
];

/** The opening of a vLLM V1 OpenAI server (0.8 – 0.10). */
export function v1Start({ version = '0.9.2', model = 'meta-llama/Llama-3.1-8B-Instruct', tp = 1, t = clock(), port = 8000 } = {}) {
  return [
    `INFO ${t()} [__init__.py:244] Automatically detected platform cuda.`,
    `INFO ${t(2)} [api_server.py:1395] vLLM API server version ${version}`,
    `INFO ${t()} [cli_args.py:325] non-default args: {'model': '${model}', 'port': ${port}${tp > 1 ? `, 'tensor_parallel_size': ${tp}` : ''}, 'disable_log_requests': True}`,
    `INFO ${t(6)} [config.py:841] This model supports multiple tasks: {'generate', 'embed', 'classify', 'reward'}. Defaulting to 'generate'.`,
    `INFO ${t()} [config.py:1472] Using max model len 131072`,
    `INFO ${t()} [config.py:2285] Chunked prefill is enabled with max_num_batched_tokens=8192.`,
    `WARNING ${t(2)} [env_override.py:17] NCCL_CUMEM_ENABLE is set to 0, skipping override. This may increase memory overhead with cudagraph+allreduce.`,
    `INFO ${t(3)} [__init__.py:244] Automatically detected platform cuda.`,
    `INFO ${t(2)} [core.py:526] Waiting for init message from front-end.`,
    `INFO ${t()} [core.py:69] Initializing a V1 LLM engine (v${version}) with config: model='${model}', speculative_config=None, tokenizer='${model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=auto, tensor_parallel_size=${tp}, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=${model}, enable_prefix_caching=True, chunked_prefill_enabled=True`,
  ];
}

/** Engine-core lines up to the model load (each with the child's prefix). */
export function v1Load({ pid = 3112, t = clock('11-02 14:03:40'), model = 'meta-llama/Llama-3.1-8B-Instruct', loaded = true } = {}) {
  const p = `(EngineCore_0 pid=${pid}) `;
  const out = [
    `${p}INFO ${t()} [parallel_state.py:1076] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0`,
    `${p}INFO ${t(2)} [gpu_model_runner.py:1770] Starting to load model ${model}...`,
    `${p}INFO ${t()} [gpu_model_runner.py:1775] Loading model from scratch...`,
    `${p}INFO ${t()} [cuda.py:284] Using Flash Attention backend on V1 engine.`,
    `${p}INFO ${t(2)} [weight_utils.py:292] Using model weights format ['*.safetensors']`,
  ];
  if (loaded)
    out.push(
      `${p}Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:05<00:00,  1.31s/it]`,
      `${p}INFO ${t(6)} [default_loader.py:272] Loading weights took 5.31 seconds`,
      `${p}INFO ${t()} [gpu_model_runner.py:1801] Model loading took 14.99 GiB and 6.02 seconds`,
    );
  return out;
}

/** The parent's closing lines after the engine core died. */
export function v1ParentDies(t = clock('11-02 14:05:00')) {
  return [
    ...traceback(
      [
        ['/usr/local/bin/vllm', 8, '<module>', 'sys.exit(main())'],
        [site('vllm/entrypoints/cli/main.py'), 54, 'main', 'args.dispatch_function(args)'],
        [site('vllm/entrypoints/cli/serve.py'), 52, 'cmd', 'uvloop.run(run_server(args))'],
        [site('vllm/v1/engine/core_client.py'), 455, '__init__', 'self._wait_for_engine_startup()'],
        [site('vllm/v1/engine/utils.py'), 494, 'wait_for_engine_startup', 'raise RuntimeError("Engine core initialization failed. "'],
      ],
      ["RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_0': 1}"],
    ),
    `/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown`,
  ];
}

/** An engine-core failure: its ERROR header, the traceback with the child's prefix, then the parent's summary. */
export function v1EngineFailure({ pid = 3112, exception, frames = ENGINE_FRAMES, t = clock('11-02 14:04:30') }) {
  const p = `(EngineCore_0 pid=${pid}) `;
  return [`${p}ERROR ${t()} [core.py:586] EngineCore failed to start.`, ...traceback(frames, exception, p), `${p}Process EngineCore_0:`, ...v1ParentDies()];
}

/** The opening of a vLLM V0 server (0.4 – 0.6) with multiprocessing workers. */
export function v0Start({ version = '0.6.3.post1', model = 'meta-llama/Llama-2-7b-chat-hf', tp = 1, t = clock('10-14 01:38:02') } = {}) {
  const out = [
    `INFO ${t()} api_server.py:528] vLLM API server version ${version}`,
    `INFO ${t()} api_server.py:529] args: Namespace(host=None, port=8000, uvicorn_log_level='info', model='${model}', tokenizer=None, trust_remote_code=False, dtype='auto', max_model_len=None, tensor_parallel_size=${tp}, gpu_memory_utilization=0.9, enforce_eager=False, disable_log_requests=True)`,
    `INFO ${t(4)} api_server.py:166] Multiprocessing frontend to use ipc:///tmp/6d1f1a2e-b7b4-4c39-9b6e-1a0e8c3f7d21 for IPC Path.`,
    `INFO ${t()} api_server.py:179] Started engine process with PID 1861`,
    `INFO ${t(3)} config.py:905] Defaulting to use mp for distributed inference`,
    `INFO ${t()} llm_engine.py:237] Initializing an LLM engine (v${version}) with config: model='${model}', speculative_config=None, tokenizer='${model}', tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=${tp}, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=${model}, use_v2_block_manager=True, chunked_prefill_enabled=False`,
  ];
  if (tp > 1) out.push(`WARNING ${t()} multiproc_gpu_executor.py:53] Reducing Torch parallelism from 26 threads to 1 to avoid unnecessary CPU contention.`);
  return out;
}

/** A V0 worker exception as its executor logs it: every traceback line at ERROR with the worker prefix. */
export function v0WorkerFailure({ pid = 1907, method = 'init_device', frames, exception, t = clock('10-14 01:39:49') }) {
  const p = `(VllmWorkerProcess pid=${pid}) ERROR ${t()} multiproc_worker_utils.py:226] `;
  return [`${p}Exception in worker VllmWorkerProcess while processing method ${method}.`, ...traceback(frames, exception, p)];
}

/** SGLang's server opening and a scheduler failure. */
export function sglangStart({ model = 'Qwen/Qwen2.5-7B-Instruct', tp = 1, version = '0.4.6.post1' } = {}) {
  return [
    `[2025-05-02 09:11:04] server_args=ServerArgs(model_path='${model}', tokenizer_path='${model}', tokenizer_mode='auto', load_format='auto', trust_remote_code=False, dtype='auto', context_length=None, device='cuda', mem_fraction_static=0.88, tp_size=${tp}, random_seed=42, log_level='info', port=30000)`,
    `[2025-05-02 09:11:06] sglang version ${version}`,
    `[2025-05-02 09:11:11 TP0] Attention backend not set. Use flashinfer backend by default.`,
    `[2025-05-02 09:11:11 TP0] Init torch distributed begin.`,
    `[2025-05-02 09:11:12 TP0] Init torch distributed ends. mem usage=0.00 GB`,
    `[2025-05-02 09:11:12 TP0] Load weight begin. avail mem=78.68 GB`,
  ];
}
export function sglangSchedulerFailure(frames, exception) {
  return [
    `[2025-05-02 09:11:40 TP0] Scheduler hit an exception: Traceback (most recent call last):`,
    ...traceback(frames, exception).slice(1),
    ``,
    `[2025-05-02 09:11:40] Received sigquit from a child process. It usually means the child failed.`,
  ];
}

/** A benchmark-client run (benchmarks/benchmark_serving.py or `vllm bench serve`). */
export function benchStart({ model = 'meta-llama/Llama-3.1-8B-Instruct', script = 'benchmarks/benchmark_serving.py', prompts = 1000 } = {}) {
  return [
    `$ python3 ${script} --backend vllm --model ${model} --dataset-name sharegpt --dataset-path /data/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts ${prompts} --request-rate inf`,
    `INFO 11-02 14:06:02 [__init__.py:244] Automatically detected platform cuda.`,
    `Namespace(backend='vllm', base_url=None, host='127.0.0.1', port=8000, endpoint='/v1/completions', dataset_name='sharegpt', dataset_path='/data/ShareGPT_V3_unfiltered_cleaned_split.json', max_concurrency=None, model='${model}', tokenizer=None, num_prompts=${prompts}, request_rate=inf, burstiness=1.0, seed=0, trust_remote_code=False, disable_tqdm=False, save_result=True)`,
  ];
}

/** A benchmark runner's own phases (the shape of ISO-Bench's and our runner's logs). */
export function runnerStart({ commit = '8aa1485f', role = 'baseline', image = `vllm-bench:${commit}` } = {}) {
  return [
    `=== ${role.toUpperCase()} run for ${commit} ===`,
    `[runner] image ${image}`,
    `[runner] GPUs: 1 x NVIDIA H100 80GB HBM3 (driver 550.127.05, CUDA 12.4)`,
    `[runner] preflight: image present, 1 GPU free, 212 GB free on /var/lib/docker`,
  ];
}

/** A pip session that fails to resolve. */
export function pipStart(pkgs = ['vllm']) {
  return [`$ pip install ${pkgs.join(' ')}`, `Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu124`, `Collecting ${pkgs[0]}`];
}

/** A CMake/ninja build of vLLM's extensions up to the failing step. */
export function buildStart({ jobs = 32, steps = 312 } = {}) {
  return [
    `$ MAX_JOBS=${jobs} NVCC_THREADS=2 TORCH_CUDA_ARCH_LIST=9.0 pip install -e . --no-build-isolation`,
    `Obtaining file:///workspace/vllm`,
    `  Checking if build backend supports build_editable: started`,
    `  Checking if build backend supports build_editable: finished with status 'done'`,
    `  Preparing editable metadata (pyproject.toml): started`,
    `  Building editable for vllm (pyproject.toml): started`,
    `  -- The CXX compiler identification is GNU 11.4.0`,
    `  -- Detecting CXX compiler ABI info - done`,
    `  -- Found Python: /usr/bin/python3 (found version "3.12.3") found components: Interpreter Development.Module Development.SABIModule`,
    `  -- Found CUDA: /usr/local/cuda (found version "12.4")`,
    `  -- CUDA target architectures: 9.0`,
    `  -- Configuring done (14.2s)`,
    `  -- Generating done (0.1s)`,
    `  [1/${steps}] Building CXX object CMakeFiles/_C.dir/csrc/cpu/torch_bindings.cpp.o`,
    `  [2/${steps}] Building CUDA object CMakeFiles/_C.dir/csrc/cache_kernels.cu.o`,
    `  [3/${steps}] Building CUDA object CMakeFiles/_C.dir/csrc/attention/paged_attention_v1.cu.o`,
  ];
}
