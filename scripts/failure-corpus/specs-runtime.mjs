// Resources and runtime failures: GPU memory and count, hardware, disk, the server and what runs under it.
import {
  ENGINE_FRAMES,
  runnerStart,
  sglangSchedulerFailure,
  sglangStart,
  site,
  traceback,
  v0Start,
  v0WorkerFailure,
  v1EngineFailure,
  v1Load,
  v1Start,
} from './compose.mjs';

const INIT_DEVICE = [
  [site('vllm/worker/worker.py'), 132, 'init_device', 'init_worker_distributed_environment(self.parallel_config, self.rank,'],
  [site('vllm/distributed/parallel_state.py'), 883, 'initialize_model_parallel', '_TP = init_model_parallel_group(group_ranks,'],
  [site('vllm/distributed/device_communicators/pynccl.py'), 89, '__init__', 'self.comm: ncclComm_t = self.nccl.ncclCommInitRank('],
];
const KV_FRAMES = [
  [site('vllm/v1/engine/core.py'), 83, '__init__', 'self._initialize_kv_caches(vllm_config)'],
  [site('vllm/v1/core/kv_cache_utils.py'), 578, 'check_enough_kv_cache_memory', 'raise ValueError('],
];

export const RUNTIME = [
  // ── gpu-oom
  {
    category: 'gpu-oom',
    name: 'torch-oom-v1',
    signature: 'torch.OutOfMemoryError: CUDA out of memory (engine core)',
    source: 'PyTorch allocator',
    lines: () => [
      ...v1Start({ model: 'Qwen/Qwen2.5-32B-Instruct' }),
      ...v1Load({ model: 'Qwen/Qwen2.5-32B-Instruct', loaded: false }),
      ...v1EngineFailure({
        exception: [
          'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB. GPU 0 has a total capacity of 79.19 GiB of which 101.06 MiB is free. Including non-PyTorch memory, this process has 79.08 GiB memory in use.',
        ],
      }),
    ],
  },
  {
    category: 'gpu-oom',
    name: 'kv-cache-too-small',
    signature: 'max seq len … is larger than the maximum number of tokens that can be stored in KV cache',
    source: 'vLLM KV-cache check',
    lines: () => [
      ...v0Start({ version: '0.5.3.post1', model: 'meta-llama/Meta-Llama-3.1-70B-Instruct' }),
      ...traceback(
        [[site('vllm/worker/worker.py'), 414, 'raise_if_cache_size_invalid', 'raise ValueError(']],
        [
          "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (43632). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        ],
      ),
    ],
  },
  {
    category: 'gpu-oom',
    name: 'no-cache-blocks',
    signature: 'No available memory for the cache blocks',
    source: 'vLLM V0 profiler',
    lines: () => [
      ...v0Start({ version: '0.4.3' }),
      ...traceback(
        [[site('vllm/worker/worker.py'), 340, 'raise_if_cache_size_invalid', 'raise ValueError("No available memory for the cache blocks. "']],
        ['ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.'],
      ),
    ],
  },
  {
    category: 'gpu-oom',
    name: 'sglang-mem-fraction',
    signature: 'Not enough memory. Please try to increase --mem-fraction-static',
    source: 'sglang#4330, #4895',
    lines: () => [
      ...sglangStart({ model: 'google/gemma-3-27b-it' }),
      ...sglangSchedulerFailure(
        [[site('sglang/srt/model_executor/model_runner.py'), 975, 'init_memory_pool', 'raise RuntimeError(']],
        ['RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.'],
      ),
    ],
  },
  {
    category: 'gpu-oom',
    name: 'cublas-alloc',
    signature: 'CUBLAS_STATUS_ALLOC_FAILED',
    source: 'cuBLAS handle creation on a full GPU',
    lines: () => [
      ...v1Start({ version: '0.8.3' }),
      ...v1Load(),
      ...v1EngineFailure({ exception: ['RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`'] }),
    ],
  },
  // ── multi-gpu-required
  {
    category: 'multi-gpu-required',
    name: 'required-gpus',
    signature: 'The number of required GPUs exceeds the total number of available GPUs',
    source: 'vLLM ray executor',
    lines: () => [
      ...v0Start({ version: '0.5.0', tp: 4, model: 'meta-llama/Meta-Llama-3-70B-Instruct' }),
      ...traceback(
        [[site('vllm/executor/ray_utils.py'), 110, 'initialize_ray_cluster', 'raise ValueError(']],
        ['ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.'],
      ),
    ],
  },
  {
    category: 'multi-gpu-required',
    name: 'invalid-ordinal',
    signature: 'CUDA error: invalid device ordinal',
    source: 'TP rank on a GPU that is not there',
    lines: () => [
      ...v0Start({ version: '0.6.1', tp: 2 }),
      ...v0WorkerFailure({
        frames: [[site('vllm/worker/worker.py'), 166, 'init_device', 'torch.cuda.set_device(self.device)']],
        exception: ['RuntimeError: CUDA error: invalid device ordinal', 'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.'],
      }),
    ],
  },
  {
    category: 'multi-gpu-required',
    name: 'heads-divisible',
    signature: 'Total number of attention heads (…) must be divisible by tensor parallel size',
    source: 'vLLM config check',
    lines: () => [
      ...v0Start({ version: '0.6.3', tp: 3 }),
      ...traceback(
        [[site('vllm/config.py'), 370, 'verify_with_parallel_config', 'raise ValueError(']],
        ['ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).'],
      ),
    ],
  },
  {
    category: 'multi-gpu-required',
    name: 'runner-requires-tp',
    signature: 'Requires tensor-parallel-size N',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [...runnerStart({ commit: '30172b49' }), 'SKIPPED: Requires tensor-parallel-size 4 but only 1 H100 available'],
  },
  {
    category: 'multi-gpu-required',
    name: 'plan-model-too-large',
    signature: 'Model … is blocked: too large',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [...runnerStart({ commit: '2a052011' }), 'Model deepseek-ai/DeepSeek-V3 is blocked: too large for a single H100 (671B parameters)'],
  },
  // ── wrong-hardware
  {
    category: 'wrong-hardware',
    name: 'rocm-subject',
    signature: 'commit subject tagged [ROCm]',
    source: 'vLLM commit subjects',
    context: 'subject: [ROCm][Kernel] Use the fused MoE kernel on MI300',
    lines: () => [...runnerStart({ commit: 'a4d5f0b2' }), '[runner] benchmark finished without a result block'],
  },
  {
    category: 'wrong-hardware',
    name: 'rocm-module',
    signature: "No module named 'vllm._rocm_C'",
    source: 'ROCm-only code path on a CUDA build',
    lines: () =>
      traceback([[site('vllm/attention/ops/paged_attn.py'), 12, '<module>', 'import vllm._rocm_C']], ["ModuleNotFoundError: No module named 'vllm._rocm_C'"]),
  },
  {
    category: 'wrong-hardware',
    name: 'torch-xla',
    signature: "No module named 'torch_xla'",
    source: 'TPU code path on a CUDA box',
    lines: () =>
      traceback(
        [[site('vllm/platforms/tpu.py'), 9, '<module>', 'import torch_xla.core.xla_model as xm']],
        ["ModuleNotFoundError: No module named 'torch_xla'"],
      ),
  },
  {
    category: 'wrong-hardware',
    name: 'hip-error',
    signature: 'hipErrorNoBinaryForGpu',
    source: 'HIP runtime',
    lines: () => ['"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"', 'Aborted (core dumped)'],
  },
  {
    category: 'wrong-hardware',
    name: 'neuron-subject',
    signature: 'commit subject tagged [Neuron]',
    source: 'vLLM commit subjects',
    context: 'subject: [Neuron] Add continuous batching for transformers-neuronx',
    lines: () => ['[runner] server started', '[runner] benchmark exited with code 1'],
  },
  // ── disk-full
  {
    category: 'disk-full',
    name: 'errno-28',
    signature: '[Errno 28] No space left on device',
    source: 'model download to a full disk',
    lines: () =>
      traceback([[site('huggingface_hub/file_download.py'), 1650, '_download_to_tmp_and_move', 'http_get(']], ['OSError: [Errno 28] No space left on device']),
  },
  {
    category: 'disk-full',
    name: 'docker-layer',
    signature: 'write …: no space left on device (docker)',
    source: 'docker pull/extract',
    lines: () => [
      'Status: Downloading newer image for vllm/vllm-openai:v0.8.5',
      'docker: failed to register layer: write /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so: no space left on device.',
    ],
  },
  {
    category: 'disk-full',
    name: 'pip-oserror',
    signature: 'Could not install packages due to an OSError: [Errno 28]',
    source: 'pip',
    lines: () => [
      'Installing collected packages: torch',
      "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device: '/usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so'",
    ],
  },
  {
    category: 'disk-full',
    name: 'safetensors-storage-full',
    signature: 'kind: StorageFull',
    source: 'safetensors serialisation',
    lines: () => ['safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })'],
  },
  {
    category: 'disk-full',
    name: 'quota',
    signature: 'Disk quota exceeded',
    source: 'shared cluster home',
    lines: () => [
      "OSError: [Errno 122] Disk quota exceeded: '/home/bench/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/blobs/3b2f0d3c.incomplete'",
    ],
  },
  // ── server-startup-failed
  {
    category: 'server-startup-failed',
    name: 'nccl-unhandled-cuda',
    signature: 'NCCL error: unhandled cuda error',
    source: 'vllm#6732, #9329',
    lines: () => [
      ...v0Start({ version: '0.5.3.post1', tp: 2 }),
      ...v0WorkerFailure({ frames: INIT_DEVICE, exception: ['RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)'] }),
      '[rank0]: RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)',
    ],
  },
  {
    category: 'server-startup-failed',
    name: 'nccl-system-error',
    signature: 'ncclSystemError',
    source: 'vllm#10626 (shared memory too small in containers)',
    lines: () => [
      ...v0Start({ version: '0.6.4.post1', tp: 2 }),
      'NCCL WARN Error while creating shared memory segment /dev/shm/nccl-4sDtwS (size 9637888)',
      ...v0WorkerFailure({
        frames: INIT_DEVICE,
        exception: [
          'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5',
          'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.',
        ],
      }),
    ],
  },
  {
    category: 'server-startup-failed',
    name: 'nccl-internal',
    signature: 'ncclInternalError',
    source: 'NCCL',
    lines: () => [
      ...v1Start({ version: '0.9.0', tp: 2 }),
      '(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511] WorkerProc failed to start.',
      '(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511] RuntimeError: NCCL error: internal error - please report this issue to the NCCL developers',
      'ncclInternalError: Internal check failed.',
      ...v1EngineFailure({
        exception: ['Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.'],
      }),
    ],
  },
  {
    category: 'server-startup-failed',
    name: 'cuda-graph-capture-hang',
    signature: 'server stopped while capturing CUDA graph shapes',
    source: 'research §5.2 (ISO-Bench)',
    lines: () => [
      ...v1Start(),
      ...v1Load(),
      '(EngineCore_0 pid=3112) INFO 11-02 14:04:02 [gpu_worker.py:232] Available KV cache memory: 52.61 GiB',
      '(EngineCore_0 pid=3112) Capturing CUDA graph shapes:  69%|██████▊   | 46/67 [00:41<00:19,  1.09it/s]',
      'bench-triage: SERVER_TIMEOUT: the vLLM server was not ready within 1200 s (http://127.0.0.1:8000/health; see server.stderr.log)',
    ],
  },
  {
    category: 'server-startup-failed',
    name: 'engine-core-child-cause',
    signature: 'engine core ValueError before "Engine core initialization failed"',
    source: 'vLLM V1 multi-process start-up',
    lines: () => [
      ...v1Start({ version: '0.10.0' }),
      ...v1Load(),
      ...v1EngineFailure({
        frames: [...ENGINE_FRAMES.slice(0, 3), [site('vllm/v1/worker/gpu_worker.py'), 211, 'determine_available_memory', 'raise ValueError(']],
        exception: ['ValueError: Sampler warm-up produced NaN logits; refusing to start'],
      }),
    ],
  },
  {
    category: 'server-startup-failed',
    name: 'torch-compile',
    signature: 'BackendCompilerFailed',
    source: 'torch.compile during V1 start-up',
    lines: () => [
      ...v1Start({ version: '0.8.0' }),
      ...v1Load(),
      ...v1EngineFailure({
        exception: [
          "torch._dynamo.exc.BackendCompilerFailed: backend='<vllm.compilation.backends.VllmBackend object at 0x7f3a>' raised:",
          'RuntimeError: Triton Error [CUDA]: device kernel image is invalid',
        ],
      }),
    ],
  },
  // ── timeout
  {
    category: 'timeout',
    name: 'runner-not-ready',
    signature: 'SERVER_TIMEOUT: the vLLM server was not ready within N s',
    source: 'this project’s runner',
    lines: () => [
      ...v1Start(),
      ...v1Load(),
      'bench-triage: SERVER_TIMEOUT: the vLLM server was not ready within 1200 s (http://127.0.0.1:8000/health; see server.stderr.log)',
    ],
  },
  {
    category: 'timeout',
    name: 'readiness-attempts',
    signature: 'Server did not become ready after N attempts',
    source: 'benchmark harness readiness loops',
    lines: () => [
      ...v1Start(),
      ...v1Load(),
      'waiting for http://localhost:8000/v1/models (attempt 118/120)',
      'waiting for http://localhost:8000/v1/models (attempt 119/120)',
      'waiting for http://localhost:8000/v1/models (attempt 120/120)',
      'ERROR: Server did not become ready after 120 attempts',
    ],
  },
  {
    category: 'timeout',
    name: 'gave-up-waiting',
    signature: 'Gave up waiting for …',
    source: 'shell readiness loop',
    lines: () => [...v1Start(), 'Gave up waiting for http://127.0.0.1:8000/health after 900s'],
  },
  {
    category: 'timeout',
    name: 'benchmark-timeout',
    signature: 'Benchmark timed out after Ns',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [...runnerStart({ commit: '8d75fe48' }), '[runner] server ready after 94 s', '[runner] running benchmark', 'Benchmark timed out after 1800s'],
  },
  {
    category: 'timeout',
    name: 'nccl-watchdog',
    signature: 'Watchdog caught collective operation timeout',
    source: 'PyTorch NCCL watchdog',
    lines: () => [
      ...v1Start({ tp: 2 }),
      '[rank1]:[E1102 14:33:06.120000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=21, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.',
    ],
  },
  // ── infra-transient
  {
    category: 'infra-transient',
    name: 'broken-pipe',
    signature: '[Errno 32] Broken pipe',
    source: 'research §5.2 (ISO-Bench Modal runs)',
    lines: () => [
      ...runnerStart({ commit: '9ed82e70' }),
      ...traceback([['/app/runner.py', 412, 'stream_logs', 'sys.stdout.write(chunk)']], ['BrokenPipeError: [Errno 32] Broken pipe']),
    ],
  },
  {
    category: 'infra-transient',
    name: 'port-in-use-new-vllm',
    signature: 'address already in use (on a vLLM without #8791)',
    source: 'vllm#11617',
    lines: () => [
      ...v1Start({ version: '0.8.5' }),
      ...traceback([[site('vllm/utils.py'), 572, 'get_open_port', 's.bind(("", 0))']], ['OSError: [Errno 98] Address already in use']),
    ],
  },
  {
    category: 'infra-transient',
    name: 'hf-unreachable',
    signature: "We couldn't connect to 'https://huggingface.co'",
    source: 'huggingface_hub offline',
    lines: () => [
      ...v1Start(),
      "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like meta-llama/Llama-3.1-8B-Instruct is not the path to a directory containing a file named config.json.",
    ],
  },
  {
    category: 'infra-transient',
    name: 'read-timeout',
    signature: 'ReadTimeoutError: HTTPSConnectionPool',
    source: 'urllib3 during a model download',
    lines: () => [
      "requests.exceptions.ReadTimeout: (ReadTimeoutError(\"HTTPSConnectionPool(host='cdn-lfs-us-1.hf.co', port=443): Read timed out. (read timeout=10)\"), '(Request ID: 0b4c6d0e)')",
    ],
  },
  {
    category: 'infra-transient',
    name: 'git-lock',
    signature: "Unable to create '…/index.lock'",
    source: 'research §5.2 (ISO-Bench build cache)',
    lines: () => ["fatal: Unable to create '/cache/vllm/.git/index.lock': File exists.", 'Another git process seems to be running in this repository.'],
  },
  {
    category: 'infra-transient',
    name: 'name-resolution',
    signature: 'Temporary failure in name resolution',
    source: 'DNS inside a container',
    lines: () => [
      "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /api/models/meta-llama/Llama-3.1-8B-Instruct (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to resolve 'huggingface.co' ([Errno -3] Temporary failure in name resolution)\"))",
    ],
  },
];
