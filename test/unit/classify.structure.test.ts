import * as assert from 'node:assert/strict';
import { Classifier, decideStructure, EXCEPTION_TABLE, FACT_TABLE, StructureReader, stripPrefixes } from '../../src/core/classify';

/** Feeds lines to a reader as the classifier does (every line here would pass its literal prefilter or not matter). */
function structureOf(lines: string[]) {
  const r = new StructureReader();
  lines.forEach((l, i) => r.line(l, i + 1, { file: 'x.log', field: null }));
  return decideStructure(r.result());
}

const tb = (pre: string, frames: Array<[string, string]>, last: string) => [
  `${pre}Traceback (most recent call last):`,
  ...frames.flatMap(([file, fn]) => [`${pre}  File "${file}", line 12, in ${fn}`, `${pre}    do_it()`]),
  `${pre}${last}`,
];
const SP = '/usr/local/lib/python3.10/site-packages';

/** One case per table entry: the entry that must answer, on lines in the formats the tools print. */
const CASES: Array<{ id: string; category: string; lines: string[] }> = [
  {
    id: 'structure.oom',
    category: 'gpu-oom',
    lines: tb(
      '(EngineCore_0 pid=812) ERROR 03-12 10:11:12 [core.py:387] ',
      [[`${SP}/vllm/v1/worker/gpu_worker.py`, 'load_model']],
      'torch.OutOfMemoryError: Tried to allocate 20.00 MiB.',
    ),
  },
  {
    id: 'structure.oom-message',
    category: 'gpu-oom',
    lines: ['ValueError: Free memory on device (3.1/79.1 GiB) on startup is less than desired GPU memory utilization (0.9, 71.2 GiB).'],
  },
  {
    id: 'structure.compiled-module',
    category: 'install-failed',
    lines: tb('', [[`${SP}/vllm/_custom_ops.py`, '<module>']], "ModuleNotFoundError: No module named 'vllm._C'"),
  },
  { id: 'structure.not-installed', category: 'install-failed', lines: tb('', [['/app/serve.py', '<module>']], "ModuleNotFoundError: No module named 'vllm'") },
  {
    id: 'structure.abi',
    category: 'cuda-incompatible',
    lines: ['ImportError: /opt/venv/lib/python3.12/site-packages/xformers/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi'],
  },
  { id: 'structure.glibc', category: 'install-failed', lines: ["ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found"] },
  {
    id: 'structure.numpy-abi',
    category: 'dependency-conflict',
    lines: ['ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject'],
  },
  {
    id: 'structure.registration',
    category: 'dependency-conflict',
    lines: ["ValueError: 'qwen3_vl' is already used by a Transformers config, pick another name."],
  },
  {
    id: 'structure.import-own',
    category: 'install-failed',
    lines: tb(
      '',
      [[`${SP}/vllm/engine/arg_utils.py`, '<module>']],
      "ImportError: cannot import name 'SchedulerConfig' from 'vllm.config' (/usr/local/lib/python3.10/site-packages/vllm/config.py)",
    ),
  },
  {
    id: 'structure.import-drift',
    category: 'dependency-conflict',
    lines: tb(
      '',
      [[`${SP}/vllm/model_executor/models/llava.py`, '<module>']],
      "ImportError: cannot import name 'LlavaImageProcessor' from 'transformers' (unknown location)",
    ),
  },
  { id: 'structure.missing-module', category: 'dependency-conflict', lines: ["ModuleNotFoundError: No module named 'pyairports'"] },
  {
    id: 'structure.attribute-drift',
    category: 'dependency-conflict',
    lines: ["AttributeError: module 'triton.language' has no attribute 'constexpr_function'"],
  },
  {
    id: 'structure.remote-code',
    category: 'model-unsupported',
    lines: tb('', [[`${SP}/transformers/dynamic_module_utils.py`, 'resolve_trust_remote_code']], 'EOFError: EOF when reading a line'),
  },
  {
    id: 'structure.unknown-model-type',
    category: 'model-unsupported',
    lines: tb('[2025-01-09 10:00:00 TP0] ', [[`${SP}/transformers/models/auto/configuration_auto.py`, '__getitem__']], "KeyError: 'llava_next_video_qwen'"),
  },
  {
    id: 'structure.rope-key',
    category: 'model-unsupported',
    lines: tb('', [[`${SP}/vllm/model_executor/layers/rotary_embedding.py`, 'get_rope']], "KeyError: 'type'"),
  },
  {
    id: 'structure.model-unsupported',
    category: 'model-unsupported',
    lines: ["ValueError: Model architectures ['FooForCausalLM'] are not supported for now. Supported architectures: [...]"],
  },
  { id: 'structure.hub-access', category: 'model-gated', lines: ['huggingface_hub.errors.GatedRepoError: 403 Client Error. (Request ID: Root=1-abc)'] },
  { id: 'structure.hub-access-message', category: 'model-gated', lines: ['OSError: You are trying to access a gated repo. Make sure to have access to it.'] },
  {
    id: 'structure.hub-rate',
    category: 'infra-transient',
    lines: ['requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://huggingface.co/x/resolve/main/config.json'],
  },
  {
    id: 'structure.port-in-use',
    category: 'infra-transient',
    lines: ['OSError: [Errno 98] error while attempting to bind on address (0.0.0.0, 8000): address already in use'],
  },
  { id: 'structure.disk-full', category: 'disk-full', lines: ['OSError: [Errno 28] No space left on device'] },
  {
    id: 'structure.network',
    category: 'infra-transient',
    lines: ["requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out. (read timeout=10)"],
  },
  {
    id: 'structure.server-refused',
    category: 'server-startup-failed',
    lines: ['aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host localhost:8000 ssl:default [Connect call failed (127.0.0.1, 8000)]'],
  },
  {
    id: 'structure.timeout',
    category: 'timeout',
    lines: tb('', [[`${SP}/ray/_private/worker.py`, 'get']], 'ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.'),
  },
  {
    id: 'structure.client-summary',
    category: 'no-metrics',
    lines: tb('', [['/workspace/benchmarks/benchmark_serving.py', 'calculate_metrics']], 'ZeroDivisionError: division by zero'),
  },
  {
    id: 'structure.dataset-missing',
    category: 'no-metrics',
    lines: tb(
      '',
      [['/workspace/benchmarks/benchmark_serving.py', 'sample_sharegpt_requests']],
      "FileNotFoundError: [Errno 2] No such file or directory: 'ShareGPT_V3_unfiltered_cleaned_split.json'",
    ),
  },
  { id: 'structure.cuda-arch', category: 'cuda-incompatible', lines: ['RuntimeError: CUDA error: no kernel image is available for execution on the device'] },
  { id: 'structure.wrong-hardware', category: 'wrong-hardware', lines: ['RuntimeError: No HIP GPUs are available'] },
  {
    id: 'structure.tp-gpus',
    category: 'multi-gpu-required',
    lines: ['AssertionError: local_world_size (8) must be less than or equal to the number of visible devices (4).'],
  },
  {
    id: 'structure.nccl',
    category: 'server-startup-failed',
    lines: [
      'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network error',
    ],
  },
  { id: 'structure.cuda-fault', category: 'server-startup-failed', lines: ['RuntimeError: CUDA error: an illegal memory access was encountered'] },
  {
    id: 'structure.torch-compile',
    category: 'server-startup-failed',
    lines: ["torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: AssertionError"],
  },
  {
    id: 'structure.build-subprocess',
    category: 'build-failed',
    lines: ["subprocess.CalledProcessError: Command '['cmake', '--build', '.', '-j', '64']' returned non-zero exit status 1."],
  },
  {
    id: 'structure.engine-died',
    category: 'server-startup-failed',
    lines: ["ERROR 01-22 00:13:32 client.py:282] RuntimeError('Engine process (pid 77) died.')"],
  },
  {
    id: 'structure.framework-assert',
    category: 'server-startup-failed',
    lines: tb('', [[`${SP}/vllm/v1/core/sched/scheduler.py`, 'schedule']], 'AssertionError: num_new_tokens must be positive'),
  },
  { id: 'structure.cuda-oom-code', category: 'gpu-oom', lines: ['[E] CUDA_ERROR_OUT_OF_MEMORY while creating the context'] },
  { id: 'structure.cuda-driver-code', category: 'cuda-incompatible', lines: ['Error 804: forward compatibility was attempted on non supported HW'] },
  { id: 'structure.cuda-fault-code', category: 'server-startup-failed', lines: ['[rank0]: failed with cudaErrorIllegalAddress at kernel launch'] },
  { id: 'structure.nccl-class', category: 'server-startup-failed', lines: ['[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.'] },
  {
    id: 'structure.resolver',
    category: 'dependency-conflict',
    lines: [
      'ERROR: Cannot install vllm==0.6.3 and outlines==0.1.1 because these package versions have conflicting dependencies.',
      'ERROR: ResolutionImpossible: for help visit …',
    ],
  },
  { id: 'structure.no-wheel', category: 'wheel-missing', lines: ['ERROR: No matching distribution found for vllm==0.6.3.post2.dev98'] },
  {
    id: 'structure.no-distribution',
    category: 'install-failed',
    lines: ['ERROR: Could not find a version that satisfies the requirement flash-attn==2.9.9 (from versions: none)'],
  },
  { id: 'structure.wheel-build', category: 'build-failed', lines: ['ERROR: Failed building wheel for xformers'] },
  {
    id: 'structure.compile',
    category: 'build-failed',
    lines: ['/src/csrc/attention/attention_kernels.cu(231): error: identifier "__hmax" is undefined', 'ninja: build stopped: subcommand failed.'],
  },
  {
    id: 'structure.container-gpu',
    category: 'cuda-incompatible',
    lines: [
      'vllm-1  | nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown',
    ],
  },
  {
    id: 'structure.argparse',
    category: 'no-metrics',
    lines: ['usage: benchmark_serving.py [-h] ...', 'benchmark_serving.py: error: unrecognized arguments: --request-rate-inf'],
  },
  {
    id: 'structure.pip-vllm-wheel',
    category: 'wheel-missing',
    lines: ['ERROR: HTTP error 404 while getting https://wheels.vllm.ai/0a1b2c3d/vllm-0.6.4.dev1+g0a1b2c3-cp38-abi3-manylinux1_x86_64.whl'],
  },
  { id: 'structure.pip', category: 'install-failed', lines: ['error: externally-managed-environment'] },
  {
    id: 'structure.image',
    category: 'image-missing',
    lines: ['Error response from daemon: manifest for vllm/vllm-openai:nightly-0a1b2c3 not found: manifest unknown'],
  },
  {
    id: 'structure.network-fact',
    category: 'infra-transient',
    lines: ['docker: Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: TLS handshake timeout.'],
  },
  { id: 'structure.timeout-fact', category: 'timeout', lines: ['[2025-06-22 16:13:55 TP0] Watchdog timeout (self.watchdog_timeout=300)'] },
  {
    id: 'structure.platform',
    category: 'wrong-hardware',
    lines: ['INFO 04-27 07:30:19 __init__.py:179] Automatically detected platform rocm.', 'RuntimeError: something else entirely'],
  },
  { id: 'structure.errno-disk', category: 'disk-full', lines: ['write /var/lib/docker/tmp/GetImageBlob123: ENOSPC'] },
  {
    id: 'structure.errno-port',
    category: 'infra-transient',
    lines: ['[E socket.cpp:435] [c10d] The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).'],
  },
  { id: 'structure.errno-network', category: 'infra-transient', lines: ['fatal: unable to access repository: ECONNRESET'] },
  { id: 'structure.segfault', category: 'server-startup-failed', lines: ['Fatal Python error: Segmentation fault'] },
  { id: 'structure.killed', category: 'server-startup-failed', lines: ['Out of memory: Killed process 4242 (python3) total-vm:123456kB'] },
  { id: 'structure.exit-137', category: 'server-startup-failed', lines: ['[runner] vllm serve exited with code 137'] },
  { id: 'structure.exit-139', category: 'server-startup-failed', lines: ['[runner] vllm serve exited with code 139'] },
  {
    id: 'structure.requests-failed',
    category: 'no-metrics',
    lines: ['============ Serving Benchmark Result ============', 'Successful requests:                     0', 'Failed requests:                         100'],
  },
];

describe('classify: the structure stage (issue 22)', () => {
  it('has a case for every entry of its table, and each case is answered by that entry', () => {
    const ids = new Set([...EXCEPTION_TABLE, ...FACT_TABLE].map(e => e.id).concat('structure.requests-failed'));
    const covered = new Set(CASES.map(c => c.id));
    assert.deepEqual(
      [...ids].filter(id => !covered.has(id)),
      [],
      'entries without a case',
    );
    for (const c of CASES) {
      const d = structureOf(c.lines);
      assert.ok(d, `${c.id}: no answer`);
      assert.equal(d.primary.id, c.id, `${c.id}: answered by ${d.primary.id} (${d.primary.description})`);
      assert.equal(d.primary.category, c.category, c.id);
      assert.ok(d.primary.evidence.line >= 1 && d.primary.evidence.text.length > 0, `${c.id}: evidence`);
    }
  });

  it('strips the prefixes of every process that prints tracebacks (vLLM V0/V1, workers, ranks, SGLang, Ray, Docker, compose)', () => {
    const lines = [
      "(EngineCore_0 pid=1234) ERROR 03-12 10:11:12 [core.py:387] KeyError: 'x'",
      "(VllmWorker rank=3 pid=99) ERROR 03-12 10:11:12 [multiproc_executor.py:470] KeyError: 'x'",
      "(RayWorkerWrapper pid=5283, ip=10.0.0.2) ERROR 08-06 12:00:00 worker_base.py:467] KeyError: 'x'",
      "[rank0]: KeyError: 'x'",
      "[2025-03-10 12:00:00 TP0] KeyError: 'x'",
      "ERROR 01-02 03:04:05 engine.py:123] KeyError: 'x'",
      "2024-02-08T08:40:56.162202300Z KeyError: 'x'",
      "vllm-openai-1  | KeyError: 'x'",
      "2025-01-01 12:00:00.123 | ERROR    | sglang.srt:main:12 - KeyError: 'x'",
    ];
    for (const l of lines) assert.equal(stripPrefixes(l).text, "KeyError: 'x'", l);
    assert.equal(stripPrefixes(lines[0]).child, true);
    assert.equal(stripPrefixes("KeyError: 'x'").child, false);
  });

  it('strong answers beat weak ones whatever their order; among equals the earliest line (nearest the cause) wins', () => {
    const d = structureOf(['[runner] vllm serve exited with code 137', 'torch.OutOfMemoryError: CUDA out of memory.']);
    assert.equal(d?.primary.category, 'gpu-oom');
    const e = structureOf(["ModuleNotFoundError: No module named 'pyairports'", 'OSError: [Errno 28] No space left on device']);
    assert.equal(e?.primary.category, 'dependency-conflict');
    assert.deepEqual(
      e?.all.map(f => f.category),
      ['dependency-conflict', 'disk-full'],
    );
  });

  it('an exception on a WARNING line is not a failure; the package importing from itself is a half-installed tree, from another a drift', () => {
    assert.equal(structureOf(['WARNING 01-02 15:28:33 Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")']), null);
    const drift = structureOf(
      tb(
        '',
        [[`${SP}/sglang/srt/model_loader/loader.py`, '<module>']],
        "ImportError: cannot import name '_set_default_torch_dtype' from 'vllm.model_executor'",
      ),
    );
    assert.equal(drift?.primary.category, 'dependency-conflict');
  });

  it('a client summary of failed requests is strong; a server access log of 5xx alone is the weakest answer', () => {
    const access = Array.from({ length: 6 }, () => 'INFO:     127.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 503 Service Unavailable');
    assert.equal(structureOf(access)?.primary.category, 'no-metrics');
    const withTimeout = structureOf([...access, "ERROR 10-12 22:21:31 client.py:244] TimeoutError('No heartbeat received from MQLLMEngine')"]);
    assert.equal(withTimeout?.primary.category, 'timeout');
    const some = structureOf(['Successful requests:                     97', 'Failed requests:                         3']);
    assert.equal(some, null, 'most requests succeeded: nothing failed structurally');
  });

  it('bad input: 200 000 frames, 50 000 chained exceptions and a 20 MB line keep its state bounded and its answer right', () => {
    const r = new StructureReader();
    const src = { file: 'x.log', field: null };
    let n = 1;
    r.line('Traceback (most recent call last):', n++, src);
    for (let i = 0; i < 200_000; i++) r.line(`  File "${SP}/vllm/layers/linear.py", line ${i}, in forward`, n++, src);
    r.line("ModuleNotFoundError: No module named 'pyairports'", n++, src);
    for (let i = 0; i < 50_000; i++) {
      r.line('During handling of the above exception, another exception occurred:', n++, src);
      r.line(`ValueError: step ${i} failed`, n++, src);
    }
    r.line(`Traceback (most recent call last): ${'  File "/a/b.py", line 1, in f '.repeat(700_000)} KeyError: 'x'`, n++, src);
    const s = r.result();
    assert.ok(s.exceptions.length <= 32, String(s.exceptions.length));
    assert.ok(s.exceptions.every(e => e.frames.length <= 12 && e.message.length <= 300 && e.evidence.text.length <= 400));
    assert.equal(r.exceptionsSeen, 50_001);
    assert.equal(decideStructure(s)?.primary.category, 'dependency-conflict', 'the first (root) exception still decides');
  });

  it('runs after the signatures only: a signature keeps its answer; with none the structure answers, strength "structure"', () => {
    const cl = new Classifier({ learned: null });
    const input = (text: string) => ({
      role: 'baseline' as const,
      status: 'failed' as const,
      texts: [{ source: { file: 'a.log', field: null }, text, scope: 'output' as const }],
      context: '',
    });
    const sig = cl.classify(input('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'));
    assert.equal(sig.strength, 'signature');
    const st = cl.classify(input(["ValueError: 'qwen3_vl' is already used by a Transformers config, pick another name."].join('\n')));
    assert.equal(st.category, 'dependency-conflict');
    assert.equal(st.strength, 'structure');
    assert.equal(st.rule, 'structure.registration');
    assert.equal(st.evidence?.line, 1);
  });
});
