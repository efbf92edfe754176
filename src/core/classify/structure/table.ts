import type { Evidence } from '../engine';
import type { Fact, FactKind, PyException, Structure } from './reader';

/**
 * What the structure of a failure means, whatever its words: an exception's type, message class
 * and the packages of its frames; an error code; a resolver conflict; an exit status; a client's
 * HTTP status distribution. Each entry is one general rule with its own test
 * (test/unit/classify.structure.test.ts). `weak` entries answer only when no other entry does.
 */
export interface StructureEntry {
  id: string;
  category: string;
  cause: string | null;
  weak?: boolean;
}
interface ExceptionEntry extends StructureEntry {
  type?: RegExp;
  message?: RegExp;
  /** Some frame is in one of these packages (or, with `inner`, the innermost frame is). */
  frames?: RegExp;
  inner?: boolean;
  /** Not when the message also matches this. */
  unless?: RegExp;
  /** The module named (the message's first group) is the package of the innermost frame: the package imports from itself. */
  own?: boolean;
  describe: (e: PyException, m: RegExpExecArray | null) => string;
}
interface FactEntry extends StructureEntry {
  kind: FactKind;
  key?: RegExp;
  detail?: RegExp;
  describe: (f: Fact) => string;
}

/** A benchmark client's own code (its frames name it). */
const CLIENT = /bench|perf|guidellm|aiperf|genai_perf|llmperf|jetstream|evalscope|locust/i;
/** Compiled modules of the serving frameworks and their kernels (not a pure-Python module that moved). */
const COMPILED =
  /No module named '((?:vllm|sglang|\w+)\._\w*C|vllm\.vllm_flash_attn[\w.]*|vllm_flash_attn[\w.]*|flash_attn_2_cuda|sgl_kernel[\w.]*|flashinfer\._\w+)'|\b(_C\.abi3|flash_attn_2_cuda)\b/;
const quote = (s: string) => s.replace(/\s+/g, ' ').slice(0, 160);
const named = (e: PyException) => `${e.type}${e.message ? `: ${quote(e.message)}` : ''}`;
const innermost = (e: PyException) => e.frames.at(-1)?.pkg ?? null;

export const EXCEPTION_TABLE: readonly ExceptionEntry[] = [
  {
    id: 'structure.oom',
    category: 'gpu-oom',
    cause: null,
    type: /(?:^|\.)OutOfMemoryError$/,
    describe: e => `CUDA ran out of memory (${named(e)})`,
  },
  {
    id: 'structure.oom-message',
    category: 'gpu-oom',
    cause: null,
    message:
      /CUDA out of memory|CUDA error: out of memory|less than desired GPU memory utili[sz]ation|out of memory on device|Not enough memory|insufficient (?:GPU )?memory|No available memory for the cache blocks|larger than the maximum number of tokens that can be stored in KV cache|KV cache is needed|not enough KV cache|Memory capacity is unbalanced/i,
    describe: e => `The GPU has too little memory for this model and setting (${named(e)})`,
  },
  {
    id: 'structure.compiled-module',
    category: 'install-failed',
    cause: 'compiled-module-missing',
    type: /(?:^|\.)(?:ImportError|ModuleNotFoundError)$/,
    message: COMPILED,
    unless: /undefined symbol/,
    describe: e => `A compiled module of the install is missing: the build or wheel does not match (${named(e)})`,
  },
  {
    id: 'structure.not-installed',
    category: 'install-failed',
    cause: 'not-installed',
    type: /(?:^|\.)ModuleNotFoundError$/,
    message: /^No module named '(?:vllm|sglang)'$/,
    describe: e => `The serving framework is not installed in this environment (${named(e)})`,
  },
  {
    id: 'structure.abi',
    category: 'cuda-incompatible',
    cause: 'abi',
    message:
      /undefined symbol|libcudart\.so[.\d]*: cannot open|libcuda\.so[.\d]*: cannot open|libnvrtc[\w.-]*: cannot open|libcublas[\w.-]*: cannot open|libnvJitLink[\w.-]*: cannot open|was compiled against a different|built for PyTorch [\d.]+|CUDA extension[^\n]{0,40}(?:compiled|built) with|version mismatch between[^\n]{0,40}(?:CUDA|torch)/i,
    describe: e => `A compiled library does not match this torch / CUDA (${named(e)})`,
  },
  {
    id: 'structure.glibc',
    category: 'install-failed',
    cause: 'glibc',
    message: /version `GLIBC(?:XX)?_[\d.]+' not found/,
    describe: e => `A compiled library needs a newer C/C++ runtime than the image has (${named(e)})`,
  },
  {
    id: 'structure.numpy-abi',
    category: 'dependency-conflict',
    cause: 'numpy2',
    message:
      /numpy\.dtype size changed|compiled using NumPy 1\.x|_ARRAY_API not found|numpy\.core\.multiarray failed to import|module 'numpy' has no attribute '(?:float|int|bool|object|NaN|product|cumproduct)'/,
    describe: e => `NumPy 2 against a module built for NumPy 1 (${named(e)})`,
  },
  {
    id: 'structure.registration',
    category: 'dependency-conflict',
    cause: 'config-registration',
    message:
      /is already used by a Transformers (?:config|model)|has already been registered|is already registered|already exists in the registry|Duplicate registration/i,
    describe: e => `Two libraries register the same name (${named(e)}): a dependency version the install did not expect`,
  },
  {
    id: 'structure.import-own',
    category: 'install-failed',
    cause: 'half-installed',
    type: /(?:^|\.)(?:ImportError|ModuleNotFoundError)$/,
    message: /(?:cannot import name '[\w.]{1,80}' from|No module named) '([\w]{1,80})\.[\w.]{1,120}'/,
    own: true,
    describe: e => `The package's own modules do not match each other: a half-installed or mixed tree (${named(e)})`,
  },
  {
    id: 'structure.import-drift',
    category: 'dependency-conflict',
    cause: 'import-drift',
    type: /(?:^|\.)ImportError$/,
    message: /cannot import name '[\w.]{1,80}' from '([\w.]{1,80})'/,
    describe: (e, m) => `${m?.[1] ?? 'A dependency'} no longer has what the code imports: a version drift (${named(e)})`,
  },
  {
    id: 'structure.missing-module',
    category: 'dependency-conflict',
    cause: 'missing-module',
    type: /(?:^|\.)ModuleNotFoundError$/,
    message: /No module named '(?!vllm'|sglang')([\w.]{1,80})'/,
    describe: (e, m) => `A dependency is missing or was moved: ${m?.[1] ?? 'a module'} (${named(e)})`,
  },
  {
    id: 'structure.attribute-drift',
    category: 'dependency-conflict',
    cause: 'attribute-drift',
    type: /(?:^|\.)AttributeError$/,
    message: /module '(?!vllm\b|sglang\b)([\w.]{1,80})' has no attribute|type object '\w{1,80}' has no attribute/,
    describe: (e, m) => `${m?.[1] ?? 'A dependency'} lacks what the code uses: a version drift (${named(e)})`,
  },
  {
    id: 'structure.remote-code',
    category: 'model-unsupported',
    cause: 'remote-code',
    frames: /trust_remote_code|dynamic_module_utils/,
    describe: e => `The model needs its repository's own code (trust_remote_code) (${named(e)})`,
  },
  {
    id: 'structure.unknown-model-type',
    category: 'model-unsupported',
    cause: 'model-type',
    type: /(?:^|\.)KeyError$/,
    frames: /configuration_auto|auto_factory|CONFIG_MAPPING|model_registry|registry\.py/,
    describe: e => `The model type is unknown to this version (${named(e)})`,
  },
  {
    id: 'structure.rope-key',
    category: 'model-unsupported',
    cause: 'rope-scaling',
    type: /(?:^|\.)KeyError$/,
    message: /^'(?:type|rope_type|factor|original_max_position_embeddings|rope_theta|mrope_section)'$/,
    describe: e => `The model's rope_scaling config has a format this version does not read (${named(e)})`,
  },
  {
    id: 'structure.model-unsupported',
    category: 'model-unsupported',
    cause: null,
    message:
      /architectures? \[?[^\n\]]{0,200}\]? (?:are|is) not supported|not supported for now|Unrecognized (?:model|configuration class)|does not recognize this architecture|but Transformers does not recognize|Unknown quantization method|quantization method [^\n]{0,60}(?:is not supported|not supported)|Unknown RoPE scaling|rope_scaling[^\n]{0,80}must be|trust_remote_code|requires you to execute the configuration file|has no (?:SGl|SGL|vLLM |v)[\w ]{0,10}implementation|Model architectures? [^\n]{0,100}failed to be inspected|not a supported model/i,
    unless: /tensor.parallel|GPU/i,
    describe: e => `This version cannot load the model as configured (${named(e)})`,
  },
  {
    id: 'structure.hub-access',
    category: 'model-gated',
    cause: null,
    type: /GatedRepoError|RepositoryNotFoundError|HFValidationError|RevisionNotFoundError/,
    describe: e => `The model repository is gated, missing or misnamed (${named(e)})`,
  },
  {
    id: 'structure.hub-access-message',
    category: 'model-gated',
    cause: null,
    message:
      /gated repo|401 Client Error|403 Client Error|Repository Not Found|is not a valid model identifier|Invalid username or password|Repo id must|Access to model [^\n]{0,80}is restricted|not a local folder and is not a valid model/i,
    describe: e => `The model repository is gated, missing or misnamed (${named(e)})`,
  },
  {
    id: 'structure.hub-rate',
    category: 'infra-transient',
    cause: 'rate-limited',
    type: /HTTPError$/,
    message: /\b(?:429|50[0234]) (?:Client|Server) Error/,
    describe: e => `The hub refused or failed for now (${named(e)}): retry`,
  },
  {
    id: 'structure.port-in-use',
    category: 'infra-transient',
    cause: 'port-in-use',
    message: /Address already in use|EADDRINUSE|\[Errno 98\]|failed to listen on any local network address/i,
    describe: e => `A port was already taken (${named(e)})`,
  },
  {
    id: 'structure.disk-full',
    category: 'disk-full',
    cause: null,
    message: /No space left on device|\[Errno 28\]|ENOSPC|Disk quota exceeded/i,
    describe: e => `The disk is full (${named(e)})`,
  },
  {
    id: 'structure.network',
    category: 'infra-transient',
    cause: 'network',
    type: /ConnectTimeout|ReadTimeout|ProxyError|ChunkedEncodingError|IncompleteRead|RemoteDisconnected|ConnectionResetError|SSLError|MaxRetryError|LocalEntryNotFoundError|HfHubHTTPError|ConnectionError|ClientPayloadError|ServerDisconnectedError/,
    unless: /localhost|127\.0\.0\.1|0\.0\.0\.0|Connection refused/i,
    describe: e => `A network transfer failed (${named(e)}): retry`,
  },
  {
    id: 'structure.server-refused',
    category: 'server-startup-failed',
    cause: 'not-listening',
    weak: true,
    type: /ConnectionRefusedError|ClientConnectorError|ConnectionError|NewConnectionError/,
    message: /localhost|127\.0\.0\.1|0\.0\.0\.0|Connection refused|Cannot connect to host/i,
    describe: e => `The server was not listening when the client connected (${named(e)})`,
  },
  {
    id: 'structure.timeout',
    category: 'timeout',
    cause: null,
    type: /(?:^|\.)(?:TimeoutError|TimeoutExpired|GetTimeoutError|RayChannelTimeoutError|DistStoreError|ReadTimeoutError|WaitTimeout\w*)$/,
    unless: /huggingface|hf\.co|pypi|github/i,
    describe: e => `A time limit ended it (${named(e)})`,
  },
  {
    id: 'structure.client-summary',
    category: 'no-metrics',
    cause: 'client-summary-crash',
    type: /(?:^|\.)ZeroDivisionError$/,
    describe: e => `The benchmark client crashed computing its summary: no request succeeded (${named(e)})`,
  },
  {
    id: 'structure.dataset-missing',
    category: 'no-metrics',
    cause: 'dataset-missing',
    type: /(?:^|\.)FileNotFoundError$/,
    message: /\.(?:json|jsonl|csv|parquet|txt)'?$|dataset|ShareGPT|sonnet/i,
    frames: CLIENT,
    describe: e => `The benchmark's dataset file is not there (${named(e)})`,
  },
  {
    id: 'structure.cuda-arch',
    category: 'cuda-incompatible',
    cause: null,
    message:
      /no kernel image is available|invalid device function|PTX was compiled with an unsupported toolchain|forward compatibility was attempted|unsupported display driver|CUDA driver version is insufficient|NVIDIA driver on your system is too old|Found no NVIDIA driver|is not compatible with the current PyTorch installation|requires (?:a GPU with )?compute capability|only supported on GPUs with compute capability|compute capability of at least|cuTensorMapEncodeTiled|FlashAttention only supports Ampere/i,
    describe: e => `The GPU, driver and compiled kernels do not match (${named(e)})`,
  },
  {
    id: 'structure.wrong-hardware',
    category: 'wrong-hardware',
    cause: null,
    message: /\b(?:ROCm|HIP|hipError\w*|XPU|TPU|Neuron|Ascend|NPU|torch_npu|HPU|Gaudi)\b|Torch not compiled with CUDA enabled|No HIP GPUs|no XPU|libtpu/,
    unless: /CUDA out of memory/i,
    describe: e => `The code path is for other hardware than this host's (${named(e)})`,
  },
  {
    id: 'structure.tp-gpus',
    category: 'multi-gpu-required',
    cause: null,
    message:
      /(?:tensor.parallel|world.size)[^\n]{0,80}(?:greater than|exceeds|larger than|more than|must be less than or equal to)[^\n]{0,40}(?:GPUs?|devices?)|World size \(\d+\) is larger than|Requested \d+ GPUs?[^\n]{0,40}only \d+|number of (?:available )?GPUs?[^\n]{0,40}(?:less than|smaller than|insufficient)|not enough GPUs|Insufficient number of GPUs/i,
    describe: e => `More GPUs are needed than the host has (${named(e)})`,
  },
  {
    id: 'structure.nccl',
    category: 'server-startup-failed',
    cause: 'nccl',
    message: /\bNCCL\b|ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ProcessGroupNCCL/,
    describe: e => `The GPUs' collective communication (NCCL) failed (${named(e)})`,
  },
  {
    id: 'structure.cuda-fault',
    category: 'server-startup-failed',
    cause: 'cuda-fault',
    message:
      /CUDA error: (?:an illegal memory access|device-side assert|misaligned address|unspecified launch failure|an illegal instruction|operation not supported)/i,
    describe: e => `A kernel faulted on the GPU (${named(e)})`,
  },
  {
    id: 'structure.torch-compile',
    category: 'server-startup-failed',
    cause: 'torch-compile',
    type: /torch\._dynamo\.exc\.|torch\._inductor\.exc\.|BackendCompilerFailed|InductorError|InternalTorchDynamoError/,
    describe: e => `torch.compile failed while the server started (${named(e)})`,
  },
  {
    id: 'structure.build-subprocess',
    category: 'build-failed',
    cause: null,
    type: /CalledProcessError$/,
    message: /cmake|ninja|nvcc|setup\.py|bdist_wheel|build_ext|\bmake\b/i,
    describe: e => `A build step failed (${named(e)})`,
  },
  {
    id: 'structure.engine-died',
    category: 'server-startup-failed',
    cause: null,
    weak: true,
    message:
      /Engine core initialization failed|Engine process failed to start|Engine process \(pid \d+\) died|EngineDeadError|Engine loop has died|EngineCore failed|Scheduler hit an exception|Worker[^\n]{0,40}(?:died|failed)|server process[^\n]{0,40}(?:exited|died)|failed to start|Initialization failed|Failed to initialize/i,
    describe: e => `The server died starting up (${named(e)})`,
  },
  {
    id: 'structure.framework-assert',
    category: 'server-startup-failed',
    cause: 'assertion',
    weak: true,
    type: /(?:^|\.)(?:AssertionError|RuntimeError|ValueError|NotImplementedError|EngineDeadError|AsyncEngineDeadError)$/,
    frames: /^(?:vllm|sglang)$/,
    inner: true,
    describe: e => `The server failed in its own code (${named(e)} in ${innermost(e)})`,
  },
];

export const FACT_TABLE: readonly FactEntry[] = [
  {
    id: 'structure.cuda-oom-code',
    category: 'gpu-oom',
    cause: null,
    kind: 'cuda',
    key: /out of memory|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation/i,
    describe: f => `CUDA ran out of memory (${f.detail})`,
  },
  {
    id: 'structure.cuda-driver-code',
    category: 'cuda-incompatible',
    cause: null,
    kind: 'cuda',
    key: /^(?:804|803|35|209|222|no kernel image|driver too old|arch unsupported|CUDA_ERROR_(?:UNSUPPORTED_PTX_VERSION|NO_BINARY_FOR_GPU|COMPAT_NOT_SUPPORTED_ON_DEVICE|SYSTEM_DRIVER_MISMATCH|INVALID_PTX)|cudaError(?:NoKernelImageForDevice|InsufficientDriver|SystemDriverMismatch|CompatNotSupportedOnDevice|UnsupportedPtxVersion)|forward compatibility.*|no kernel image is available.*|system has unsupported display driver.*)$/i,
    describe: f => `The GPU, driver and compiled kernels do not match (${f.detail})`,
  },
  {
    id: 'structure.cuda-fault-code',
    category: 'server-startup-failed',
    cause: 'cuda-fault',
    weak: true,
    kind: 'cuda',
    key: /illegal memory access|device-side assert|misaligned address|unspecified launch failure|illegal instruction|CUDA_ERROR_ILLEGAL_ADDRESS|cudaErrorIllegalAddress|CUBLAS_STATUS_EXECUTION_FAILED/i,
    describe: f => `A kernel faulted on the GPU (${f.detail})`,
  },
  {
    id: 'structure.nccl-class',
    category: 'server-startup-failed',
    cause: 'nccl',
    kind: 'nccl',
    describe: f => `The GPUs' collective communication (NCCL) failed: ${f.detail}`,
  },
  {
    id: 'structure.resolver',
    category: 'dependency-conflict',
    cause: 'resolver',
    kind: 'resolver',
    describe: f => `The package resolver found conflicting requirements: ${f.detail}`,
  },
  {
    id: 'structure.no-wheel',
    category: 'wheel-missing',
    cause: null,
    kind: 'no-distribution',
    key: /^vllm\b/,
    describe: f => `No vLLM distribution matches what was asked (${f.detail})`,
  },
  {
    id: 'structure.no-distribution',
    category: 'install-failed',
    cause: 'no-distribution',
    kind: 'no-distribution',
    describe: f => `A requirement has no matching distribution (${f.detail})`,
  },
  { id: 'structure.wheel-build', category: 'build-failed', cause: null, kind: 'wheel-build', describe: f => `Building a wheel failed (${f.detail})` },
  { id: 'structure.compile', category: 'build-failed', cause: null, kind: 'compile', describe: f => `Compiling failed (${f.detail})` },
  {
    id: 'structure.container-gpu',
    category: 'cuda-incompatible',
    cause: 'container-runtime',
    kind: 'container',
    key: /^(?:nvml|no-gpu-runtime|nvidia-container-cli)$/,
    describe: f => `The container cannot reach the GPU driver (${f.detail})`,
  },
  {
    id: 'structure.argparse',
    category: 'no-metrics',
    cause: 'bad-arguments',
    kind: 'argparse',
    describe: f => `The command's arguments are wrong: ${f.detail}`,
  },
  {
    id: 'structure.pip-vllm-wheel',
    category: 'wheel-missing',
    cause: null,
    kind: 'pip',
    key: /^vllm-wheel-404$/,
    describe: f => `The vLLM wheel asked for does not exist (${f.detail})`,
  },
  { id: 'structure.pip', category: 'install-failed', cause: null, kind: 'pip', describe: f => `pip could not install (${f.detail})` },
  { id: 'structure.image', category: 'image-missing', cause: null, kind: 'docker', describe: f => `The image is not there (${f.detail})` },
  {
    id: 'structure.network-fact',
    category: 'infra-transient',
    cause: 'network',
    kind: 'network',
    describe: f => `A network transfer failed (${f.detail}): retry`,
  },
  { id: 'structure.timeout-fact', category: 'timeout', cause: null, weak: true, kind: 'timeout', describe: f => `A time limit ended it (${f.detail})` },
  {
    id: 'structure.platform',
    category: 'wrong-hardware',
    cause: null,
    weak: true,
    kind: 'platform',
    key: /^(?!cuda$)/,
    describe: f => `The run is on another platform than CUDA GPUs (${f.detail})`,
  },
  { id: 'structure.errno-disk', category: 'disk-full', cause: null, kind: 'errno', key: /^(?:28|ENOSPC)$/, describe: f => `The disk is full (${f.detail})` },
  {
    id: 'structure.errno-port',
    category: 'infra-transient',
    cause: 'port-in-use',
    kind: 'errno',
    key: /^(?:98|EADDRINUSE)$/,
    describe: f => `A port was already taken (${f.detail})`,
  },
  {
    id: 'structure.errno-network',
    category: 'infra-transient',
    cause: 'network',
    weak: true,
    kind: 'errno',
    key: /^(?:104|110|ECONNRESET|ETIMEDOUT)$/,
    describe: f => `A network connection failed (${f.detail}): retry`,
  },
  {
    id: 'structure.segfault',
    category: 'server-startup-failed',
    cause: 'segfault',
    weak: true,
    kind: 'signal',
    key: /^SIGSEGV$/,
    describe: f => `A process crashed (${f.detail})`,
  },
  {
    id: 'structure.killed',
    category: 'server-startup-failed',
    cause: 'killed',
    weak: true,
    kind: 'signal',
    key: /^(?:SIGKILL|oom-killer)$/,
    describe: f => `A process was killed (${f.detail}); the kernel's OOM killer does this when host memory runs out`,
  },
  {
    id: 'structure.exit-137',
    category: 'server-startup-failed',
    cause: 'killed',
    weak: true,
    kind: 'exit',
    key: /^(?:137|-9)$/,
    describe: f => `A process was killed (${f.detail}: SIGKILL, often the OOM killer)`,
  },
  {
    id: 'structure.exit-139',
    category: 'server-startup-failed',
    cause: 'segfault',
    weak: true,
    kind: 'exit',
    key: /^(?:139|-11)$/,
    describe: f => `A process crashed (${f.detail}: SIGSEGV)`,
  },
];

export interface StructureFinding {
  id: string;
  category: string;
  cause: string | null;
  description: string;
  evidence: Evidence;
  weak: boolean;
}

/** Success of a benchmark client's requests: (almost) all failed → no metrics worth the name. */
function requestsFinding(s: Structure): StructureFinding | null {
  const { ok, failed, total } = s.requests;
  const bad = [...s.http.entries()].sort((a, b) => b[1] - a[1]);
  const badCount = bad.reduce((n, [, c]) => n + c, 0);
  const dist = bad.map(([k, c]) => `${k} ×${c}`).join(', ');
  const ev = s.facts.find(f => f.kind === 'requests' || f.kind === 'http')?.evidence;
  if (!ev) return null;
  const share = total ? (ok ?? 0) / total : null;
  const summary = ok !== null;
  if ((ok === 0 && (failed ?? total ?? 1) > 0) || (share !== null && share < 0.5) || (!summary && badCount >= 5))
    return {
      // A server's own access log of failing requests points at the server: its cause is elsewhere.
      weak: !summary,
      id: 'structure.requests-failed',
      category: 'no-metrics',
      cause: 'requests-failed',
      description: `The benchmark's requests failed${ok !== null && total ? ` (${ok} of ${total} succeeded)` : ''}${dist ? `: HTTP ${dist}` : ''}`,
      evidence: ev,
    };
  return null;
}

function matchException(t: ExceptionEntry, e: PyException): RegExpExecArray | null | false {
  if (t.type && !t.type.test(e.type)) return false;
  let m: RegExpExecArray | null = null;
  const text = `${e.type}: ${e.message}`;
  if (t.message) {
    m = t.message.exec(t.type ? e.message : text);
    if (!m) return false;
  }
  if (t.unless?.test(text)) return false;
  if (t.frames) {
    const pkgs = t.inner ? [innermost(e) ?? ''] : e.frames.map(f => `${f.pkg} ${f.file} ${f.fn}`);
    if (!pkgs.some(p => t.frames!.test(p))) return false;
  }
  if (t.own && (!m || innermost(e) !== m[1])) return false;
  return m;
}

/**
 * The structure stage's answer: every entry that matches, strong before weak, then the earliest
 * evidence (nearest the cause), then table order. Null when nothing structural is known.
 */
export function decideStructure(s: Structure): { primary: StructureFinding; all: StructureFinding[] } | null {
  const hits: Array<StructureFinding & { order: number }> = [];
  let order = 0;
  for (const e of s.exceptions)
    for (const t of EXCEPTION_TABLE) {
      const m = matchException(t, e);
      if (m === false) continue;
      hits.push({ id: t.id, category: t.category, cause: t.cause, description: t.describe(e, m), evidence: e.evidence, weak: !!t.weak, order: order++ });
      break;
    }
  for (const f of s.facts)
    for (const t of FACT_TABLE) {
      if (t.kind !== f.kind || (t.key && !t.key.test(f.key)) || (t.detail && !t.detail.test(f.detail))) continue;
      hits.push({ id: t.id, category: t.category, cause: t.cause, description: t.describe(f), evidence: f.evidence, weak: !!t.weak, order: order++ });
      break;
    }
  const r = requestsFinding(s);
  if (r) hits.push({ ...r, order: order++ });
  if (!hits.length) return null;
  // A server's access log of failing requests is a consequence: after every other weak answer.
  const tier = (h: StructureFinding) => (h.weak ? (h.id === 'structure.requests-failed' ? 2 : 1) : 0);
  hits.sort((a, b) => tier(a) - tier(b) || a.evidence.line - b.evidence.line || a.order - b.order);
  const all: StructureFinding[] = [];
  for (const h of hits)
    if (!all.some(x => x.category === h.category && x.cause === h.cause))
      all.push({ id: h.id, category: h.category, cause: h.cause, description: h.description, evidence: h.evidence, weak: h.weak });
  return { primary: all[0], all };
}
