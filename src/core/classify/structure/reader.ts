import type { Evidence, EvidenceSource } from '../engine';
import { stripPrefixes } from './prefix';
import { isErrorForm } from '../../logs/lines';

/** One frame of a Python traceback: the package it is in (site-packages' first folder, or the source tree's). */
export interface Frame {
  file: string;
  /** `vllm`, `transformers`, `benchmark_serving` (a script: its file name) … */
  pkg: string;
  fn: string;
}

/** An exception a process printed: its type, message, the frames above it (innermost last). */
export interface PyException {
  type: string;
  message: string;
  frames: Frame[];
  /** Printed by a child process (engine core, worker, rank, TP/DP process). */
  child: boolean;
  evidence: Evidence;
}

/** What a line states whatever its words: an error code, a resolver conflict, an exit status … */
export interface Fact {
  kind: FactKind;
  /** The normalised key the table maps (`out of memory`, `804`, `137`, `503`, a package …). */
  key: string;
  /** The captured detail, for the description. */
  detail: string;
  evidence: Evidence;
}
export type FactKind =
  | 'cuda'
  | 'nccl'
  | 'resolver'
  | 'no-distribution'
  | 'wheel-build'
  | 'compile'
  | 'exit'
  | 'signal'
  | 'http'
  | 'requests'
  | 'container'
  | 'argparse'
  | 'errno'
  | 'pip'
  | 'docker'
  | 'network'
  | 'timeout'
  | 'platform';

export interface Structure {
  exceptions: PyException[];
  facts: Fact[];
  /** Non-2xx HTTP statuses counted (status → count) and the requests a client summary says succeeded / failed. */
  http: Map<string, number>;
  requests: { ok: number | null; failed: number | null; total: number | null };
}

/**
 * Literals a line must contain for the reader to look at it (case-folded). Chosen so that a
 * healthy server's INFO lines, request logs with 2xx and progress bars carry none of them.
 */
export const STRUCTURE_LITERALS = [
  'traceback',
  'file "',
  'error',
  'exception',
  'nccl',
  'signal',
  'killed',
  'exit code',
  'exit status',
  'exited with',
  'non-zero',
  'segmentation fault',
  'core dumped',
  'conflict',
  'unsatisfiable',
  'no solution found',
  ' requires ',
  'no matching distribution',
  'could not find a version',
  'failed building wheel',
  'failed to build',
  'subprocess-exited-with-error',
  'http/1.1" 4',
  'http/1.1" 5',
  'service unavailable',
  'internal server error',
  'too many requests',
  'successful requests',
  'failed requests',
  'succeeded',
  'libnvidia',
  'nvidia-container',
  'oci runtime',
  'no kernel image',
  'driver version',
  'errno',
  'timed out',
  'watchdog',
  'heartbeat',
  'deadline exceeded',
  'externally-managed',
  'failed to solve',
  'manifest',
  'pull access denied',
  'tls handshake',
  'i/o timeout',
  'connection reset',
  'http code',
  'status code',
  'detected platform rocm',
  'detected platform tpu',
  'detected platform xpu',
  'detected platform hpu',
  'detected platform neuron',
  'detected platform cpu',
  'no platform detected',
  'platform plugin',
];

const MAX_MESSAGE = 300;
const MAX_FRAMES = 12;
/** Exceptions kept: the first and the last this many (a flood of repeats keeps its ends). */
const KEEP = 16;
const MAX_FACTS_PER_KIND = 16;

const TRACEBACK = /Traceback \(most recent call last\):?/;
const FRAME = /^\s{0,12}File "([^"\n]{1,400})", line \d{1,9}, in ([^\s]{1,200})/;
const CHAIN =
  /^(?:The above exception was the direct cause of the following exception|During handling of the above exception, another exception occurred):?\s*$/;
// `pkg.mod.SomeError: message`, `KeyError: 'type'`, `Exception: …`; not `Exception in thread …`.
const EXCEPTION =
  /^((?:[A-Za-z_][\w]{0,60}\.){0,6}(?:[A-Z][\w]{0,60}(?:Error|Exception|Exit|Interrupt|Fault|Failure|Failed|Warning|Timeout|Refused)|Exception|StopIteration|KeyboardInterrupt|CancelledError))(?::\s?(.*))?$/;
// An exception printed inside a sentence: `Scheduler hit an exception: Traceback …`, `… failed: RuntimeError: …`.
const INLINE_EXCEPTION = /(?:^|[\s:(])((?:[a-z_][\w]{0,40}\.){0,4}[A-Z][\w]{0,40}(?:Error|Exception)): ([^\n]{1,400})$/;
// Its repr, as loggers print it: `RuntimeError('Engine process (pid 77) died.')`, `with ModuleNotFoundError("No module named 'vllm._C'")`.
const REPR_EXCEPTION = /(?:^|[\s:(])((?:[a-z_][\w]{0,40}\.){0,4}[A-Z][\w]{0,40}(?:Error|Exception))\((['"])([^\n]{0,400}?)\2\)/;

interface Detector {
  kind: FactKind;
  /** Also on INFO / WARNING lines (a request log, the platform line); other facts only count on lines that state an error. */
  anyLevel?: boolean;
  re: RegExp;
  key: (m: RegExpExecArray) => string;
  detail?: (m: RegExpExecArray) => string;
}

/** Facts from single lines. Each pattern is bounded (no nested quantifiers over open text). */
const DETECTORS: Detector[] = [
  { kind: 'cuda', re: /CUDA error: ([^\n.]{1,120})/i, key: m => m[1].trim().toLowerCase() },
  { kind: 'cuda', re: /\b(CUDA_ERROR_[A-Z_]{2,60}|cudaError[A-Z]\w{2,60}|CUBLAS_STATUS_[A-Z_]{2,40}|CUDNN_STATUS_[A-Z_]{2,40})\b/, key: m => m[1] },
  { kind: 'cuda', re: /\bError (\d{3}): ([^\n]{1,160})/, key: m => m[1], detail: m => `Error ${m[1]}: ${m[2]}` },
  { kind: 'cuda', re: /no kernel image is available for execution on the device/i, key: () => 'no kernel image' },
  {
    kind: 'cuda',
    re: /(CUDA driver version is insufficient[^\n]{0,80}|driver version is insufficient[^\n]{0,80}|NVIDIA driver on your system is too old[^\n]{0,80}|Found no NVIDIA driver[^\n]{0,80}|unsupported display driver \/ cuda driver combination)/i,
    key: () => 'driver too old',
  },
  {
    kind: 'cuda',
    re: /(is not compatible with the current PyTorch installation|compute capability[^\n]{0,40}(?:not supported|is not compatible|requires)|sm_\d{2,3}[a-z]? is not compatible)/i,
    key: () => 'arch unsupported',
  },
  {
    kind: 'nccl',
    re: /\b(?:NCCL error[^\n]{0,80}?|nccl)(unhandled cuda error|unhandled system error|internal error|invalid usage|invalid argument|remote process exited|UnhandledCudaError|SystemError|InternalError|InvalidUsage|InvalidArgument|RemoteError)/i,
    key: m =>
      m[1]
        .replace(/\s+/g, '')
        .toLowerCase()
        .replace(/error$/, ''),
  },
  { kind: 'nccl', re: /Watchdog caught collective operation timeout|collective operation timeout|NCCL[^\n]{0,40}timed? ?out/i, key: () => 'timeout' },
  {
    kind: 'resolver',
    re: /(ResolutionImpossible|have conflicting dependencies|The conflict is caused by|No solution found when resolving|requirements are unsatisfiable|(\S{1,80}) requires (\S{1,80}), but you have (\S{1,80} \S{1,40}) which is incompatible)/i,
    key: m => (m[2] ? m[3].replace(/[<>=!~].*$/, '').toLowerCase() : 'conflict'),
    detail: m => m[0],
  },
  {
    kind: 'resolver',
    re: /Because (?:[\w.-]{1,80} )?(?:depends on|==|>=)?\s?([\w.-]{1,80})[^\n]{0,200}(?:we can conclude|is unsatisfiable|cannot be used)/,
    key: m => m[1].toLowerCase(),
    detail: m => m[0],
  },
  {
    kind: 'no-distribution',
    re: /(?:No matching distribution found for|Could not find a version that satisfies the requirement)\s{1,4}([\w.[\]-]{1,80})/i,
    key: m => m[1].toLowerCase(),
  },
  {
    kind: 'wheel-build',
    re: /(?:Failed building wheel for|Failed to build(?: installable wheels for some pyproject\.toml based projects)?:?|error: subprocess-exited-with-error|Building wheel for ([\w.-]{1,60}) \(pyproject\.toml\): finished with status 'error')\s{0,4}\(?([\w.-]{0,60})/i,
    key: m => (m[1] || m[2] || 'wheel').toLowerCase(),
  },
  {
    kind: 'compile',
    re: /(CMake Error|ninja: build stopped|nvcc fatal|error: command '[^'\n]{0,80}(?:nvcc|gcc|g\+\+|c\+\+|ninja|cmake)'|\.(?:cu|cpp|cc|c|h|cuh)\(?:?\d{1,6}[):][^\n]{0,20}error|fatal error: [\w./-]{1,80}: No such file or directory|collect2: error|undefined reference to)/,
    key: m =>
      m[1]
        .replace(/^error: command .*/, 'compiler')
        .replace(/\.\w+\(?:?\d.*/, 'compile error')
        .slice(0, 40),
  },
  {
    kind: 'exit',
    re: /(?:exit(?:ed)?(?: with)? (?:code|status)|returned non-zero exit status|exitcode|exit_code)[ :=]{0,3}(-?\d{1,3})\b/i,
    key: m => m[1],
  },
  {
    kind: 'signal',
    re: /\b(SIGKILL|SIGSEGV|SIGABRT|SIGBUS|SIGTERM|Segmentation fault|core dumped|oom-kill|Out of memory: Killed process|died due to signal \d{1,2}|killed by signal \d{1,2}|^Killed$)/,
    key: m =>
      /SEGV|Segmentation|core dumped/i.test(m[1])
        ? 'SIGSEGV'
        : /oom-kill|Out of memory/i.test(m[1])
          ? 'oom-killer'
          : /^Killed$|SIGKILL|signal 9\b/.test(m[1])
            ? 'SIGKILL'
            : m[1],
  },
  { anyLevel: true, kind: 'http', re: /HTTP\/1\.[01]" ([45]\d\d)\b/, key: m => m[1] },
  {
    kind: 'http',
    re: /\b([45]\d\d)(?:,? message=)?[ ,'"]{0,3}(Service Unavailable|Internal Server Error|Too Many Requests|Bad Request|Bad Gateway|Gateway Timeout)/i,
    key: m => m[1],
  },
  { anyLevel: true, kind: 'requests', re: /Successful requests:\s{0,40}(\d{1,9})/, key: () => 'ok', detail: m => m[1] },
  { anyLevel: true, kind: 'requests', re: /Failed requests:\s{0,40}(\d{1,9})/, key: () => 'failed', detail: m => m[1] },
  {
    anyLevel: true,
    kind: 'requests',
    re: /\b(\d{1,9}) (?:out )?of (\d{1,9}) (?:requests? )?(?:succeeded|successful|completed)/i,
    key: () => 'ok-of',
    detail: m => `${m[1]}/${m[2]}`,
  },
  {
    kind: 'container',
    re: /(OCI runtime (?:create|exec) failed|nvidia-container-cli: [\w ]{1,60}|libnvidia-ml\.so(?:\.1)?: cannot open shared object file|could not select device driver "[^"\n]{0,40}" with capabilities|unknown or invalid runtime name: nvidia|Failed to initialize NVML: [^\n]{1,80}|NVIDIA-SMI has failed[^\n]{0,80})/i,
    key: m =>
      /libnvidia-ml|NVML|NVIDIA-SMI/i.test(m.input)
        ? 'nvml'
        : /could not select device driver|invalid runtime name/i.test(m.input)
          ? 'no-gpu-runtime'
          : /nvidia-container-cli/i.test(m.input)
            ? 'nvidia-container-cli'
            : 'oci',
    detail: m => m.input.slice(m.index, m.index + 240),
  },
  { kind: 'http', re: /(?:HTTP (?:code|status)|[Ss]tatus(?: code)?)[:= ]{1,3}([45]\d\d)\b/, key: m => m[1] },
  {
    kind: 'pip',
    re: /(externally-managed-environment|HTTP error 404 while getting [^\s]{1,300}|No matching distribution|is not a supported wheel on this platform)/,
    key: m =>
      /404 while getting [^\s]{0,300}\/(vllm)-[^\s/]{1,120}\.whl/.test(m[1])
        ? 'vllm-wheel-404'
        : /404/.test(m[1])
          ? 'wheel-404'
          : /externally/.test(m[1])
            ? 'externally-managed'
            : 'install',
    detail: m => m[1],
  },
  {
    kind: 'docker',
    re: /(manifest for [^\s]{1,200} not found|manifest unknown|pull access denied for [^\s,]{1,200}|repository does not exist|failed to solve: [^\n]{0,200}?: not found|failed to resolve source metadata for [^\s]{1,200}|No such image: [^\s]{1,200})/i,
    key: () => 'image-not-found',
    detail: m => m[1],
  },
  {
    kind: 'network',
    re: /(TLS handshake timeout|i\/o timeout|connection reset by peer|Client\.Timeout exceeded|Temporary failure in name resolution|Name or service not known|Network is unreachable|Read timed out|Connection timed out|Max retries exceeded with url: [^\s]{1,200}|Failed to establish a new connection)/i,
    key: m =>
      m[1]
        .toLowerCase()
        .replace(/ with url: .*/, '')
        .slice(0, 40),
    detail: m => m.input.slice(Math.max(0, m.index - 120), m.index + m[0].length).trim(),
  },
  {
    kind: 'timeout',
    re: /\b(timed out|Watchdog timeout|deadline exceeded|No heartbeat received|heartbeat (?:timeout|missed)|exceeded (?:the )?(?:time ?limit|timeout))/i,
    key: () => 'timeout',
    detail: m => m.input.slice(Math.max(0, m.index - 120), m.index + m[0].length + 60).trim(),
  },
  {
    anyLevel: true,
    kind: 'platform',
    re: /(?:detected platform|Platform plugin) (rocm|tpu|xpu|hpu|neuron|cpu|ascend|npu)\b|(No platform detected)/i,
    key: m => (m[1] ?? 'none').toLowerCase(),
    detail: m => m[0],
  },
  {
    kind: 'argparse',
    re: /\berror: (unrecognized arguments?:[^\n]{0,200}|argument [^\n]{1,80}: invalid choice[^\n]{0,200}|the following arguments are required:[^\n]{0,200}|argument [^\n]{1,80}: expected [^\n]{1,80}|invalid \w{1,20} value:[^\n]{0,120})/,
    key: m =>
      /unrecognized/.test(m[1]) ? 'unrecognized' : /invalid choice/.test(m[1]) ? 'invalid-choice' : /required/.test(m[1]) ? 'required' : 'invalid-value',
    detail: m => m[1],
  },
  { kind: 'errno', re: /\[Errno (\d{1,4})\] ([^\n]{1,160})/, key: m => m[1], detail: m => `[Errno ${m[1]}] ${m[2]}` },
  { kind: 'errno', re: /\berrno:? ?(\d{1,4})\b(?: - ([^)\n]{1,80}))?/, key: m => m[1], detail: m => m[0] },
  { kind: 'errno', re: /Address already in use/i, key: () => '98', detail: m => m.input.slice(Math.max(0, m.index - 80), m.index + 40) },
  { kind: 'errno', re: /\b(ENOSPC|EADDRINUSE|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EACCES)\b/, key: m => m[1] },
];

/** The package a traceback frame is in: site-packages' first folder, a source tree's, or a script's name. */
export function packageOf(file: string): string {
  const f = file.replace(/\\/g, '/');
  const sp = /(?:site|dist)-packages\/([\w.-]{1,80})/.exec(f);
  if (sp) return sp[1].replace(/\.py$/, '').replace(/-[\d.]+.*$/, '');
  const tree = /\/(vllm|sglang|transformers|torch|flashinfer|xformers|ray|triton|guidellm|aiperf|genai_perf)\//.exec(f);
  if (tree) return tree[1];
  const base = /([\w.-]{1,80})\.py$/.exec(f);
  return base ? base[1] : f.slice(-40);
}

/**
 * Reads the structure of failure output line by line, in bounded memory: Python tracebacks in
 * any prefix format (their final exceptions, the frames' packages), and single-line facts
 * (CUDA/NCCL error codes, resolver conflicts, exit codes and signals, HTTP statuses, container
 * runtime errors, argparse errors). Lines are looked at in their first 8 KB only.
 */
export class StructureReader {
  private readonly first: PyException[] = [];
  private readonly last: PyException[] = [];
  private readonly facts = new Map<FactKind, Fact[]>();
  private readonly http = new Map<string, number>();
  private readonly requests: Structure['requests'] = { ok: null, failed: null, total: null };
  /** Frames of the traceback being read (innermost last, at most MAX_FRAMES). */
  private frames: Frame[] = [];
  private inTraceback = false;
  private seen = 0;

  line(raw: string, no: number, source: EvidenceSource): void {
    const { text, child } = stripPrefixes(raw);
    // A WARNING / INFO line is not a failure (vLLM warns `Failed to import from vllm._C with …` and runs on).
    const benign =
      !isErrorForm(raw.length > 4096 ? raw.slice(0, 4096) : raw) && /^\s{0,8}(?:\S{1,80}\s{1,4}){0,3}(?:WARNING|WARN|INFO|DEBUG)\b/.test(raw.slice(0, 400));
    const evidence = (): Evidence => ({ file: source.file, field: source.field, line: no, text: text.length > 400 ? text.slice(0, 400) : text.trimEnd() });
    const tb = TRACEBACK.exec(text);
    if (tb) {
      this.inTraceback = true;
      this.frames = [];
      // `Scheduler hit an exception: Traceback (most recent call last):` — the rest of the line is nothing more.
      return;
    }
    const f = FRAME.exec(text);
    if (f) {
      if (!this.inTraceback) this.frames = [];
      this.inTraceback = true;
      this.frames.push({ file: f[1], pkg: packageOf(f[1]), fn: f[2] });
      if (this.frames.length > MAX_FRAMES) this.frames.shift();
      return;
    }
    if (CHAIN.test(text.trim())) return;
    const trimmed = text.trim();
    const repr = benign || EXCEPTION.test(trimmed) ? null : REPR_EXCEPTION.exec(trimmed);
    const e =
      (benign ? null : EXCEPTION.exec(trimmed)) ??
      (repr ? ([repr[0], repr[1], repr[3]] as unknown as RegExpExecArray) : null) ??
      (this.inTraceback || benign ? null : INLINE_EXCEPTION.exec(trimmed));
    if (e) {
      this.keep({
        type: e[1],
        message: (e[2] ?? '').trim().slice(0, MAX_MESSAGE),
        frames: this.inTraceback ? this.frames : [],
        child,
        evidence: evidence(),
      });
      this.inTraceback = false;
      this.frames = [];
    }
    for (const d of DETECTORS) {
      if (benign && !d.anyLevel) continue;
      const m = d.re.exec(trimmed);
      if (!m) continue;
      const fact: Fact = { kind: d.kind, key: d.key(m), detail: (d.detail?.(m) ?? m[0]).slice(0, MAX_MESSAGE), evidence: evidence() };
      if (d.kind === 'http') this.http.set(fact.key, (this.http.get(fact.key) ?? 0) + 1);
      if (d.kind === 'requests') this.count(fact);
      const list = this.facts.get(d.kind) ?? this.facts.set(d.kind, []).get(d.kind)!;
      // Per kind: the first few facts with distinct keys (the earliest is nearest the cause).
      if (list.length < MAX_FACTS_PER_KIND && !list.some(x => x.key === fact.key)) list.push(fact);
    }
  }

  private count(f: Fact): void {
    if (f.key === 'ok') this.requests.ok = Number(f.detail);
    else if (f.key === 'failed') this.requests.failed = Number(f.detail);
    else {
      const [ok, total] = f.detail.split('/').map(Number);
      this.requests.ok = ok;
      this.requests.total = total;
    }
  }

  private keep(e: PyException): void {
    this.seen++;
    if (this.first.length < KEEP) this.first.push(e);
    else {
      this.last.push(e);
      if (this.last.length > KEEP) this.last.shift();
    }
  }

  result(): Structure {
    const facts = [...this.facts.values()].flat().sort((a, b) => a.evidence.line - b.evidence.line);
    const { ok, failed } = this.requests;
    const total = this.requests.total ?? (ok !== null && failed !== null ? ok + failed : null);
    return { exceptions: [...this.first, ...this.last], facts, http: new Map(this.http), requests: { ok, failed, total } };
  }

  /** Exceptions read (all of them, not only those kept). */
  get exceptionsSeen(): number {
    return this.seen;
  }
}
