import type { RuleSpec } from '../ruleSchema';
import { S, any, err } from './helpers';

/** Runtime: the server or the infrastructure under it. */
export const RUNTIME_RULES: RuleSpec[] = [
  {
    id: 'infra.broken-pipe',
    category: 'infra-transient',
    cause: 'broken-pipe',
    strength: S,
    description: '{1}',
    indications: [any('(\\[Errno 32\\] Broken pipe|BrokenPipeError[^\\n]{0,40})')],
  },
  {
    id: 'infra.sandbox',
    category: 'infra-transient',
    cause: 'sandbox-error',
    strength: S,
    description: '{1}',
    indications: [
      any('(Sandbox error: [^\\n]{0,80})'),
      any('(request cancelled due to internal error)'),
      any("(Lookup failed for Function '[^']+')"),
      any('(Connection reset by peer)'),
      any('(Temporary failure in name resolution)'),
    ],
  },
  {
    id: 'server.cuda-graph',
    category: 'server-startup-failed',
    cause: 'cuda-graph-timeout',
    strength: S,
    description: 'Server stopped while capturing CUDA graphs: {1}',
    indications: [err('server failed to start\\. Logs: (\\w*apturing CUDA graph shapes:[^\\n]{0,30})')],
  },
  {
    id: 'infra.port-in-use',
    category: 'infra-transient',
    cause: 'port-in-use',
    strength: S,
    // vLLM 0.6.x binds its API port twice (#8791): the engine turns this into version-bug when the log names such a version.
    description: 'The port is already taken: {1}',
    indications: [
      any('(error while attempting to bind on address[^\\n]{0,80}address already in use)', 'i'),
      any('(OSError: \\[Errno 98\\] Address already in use)'),
      any('(bind\\(\\): address already in use|EADDRINUSE[^\\n]{0,60})'),
      any('(ZMQError: Address already in use[^\\n]{0,80})'),
    ],
  },
  {
    id: 'infra.network',
    category: 'infra-transient',
    cause: 'network',
    strength: S,
    description: 'A network call failed: {1}',
    indications: [
      any("(We couldn't connect to '[^']{1,120}' to load [^\\n]{0,60})"),
      any("((?:ReadTimeoutError|ConnectTimeoutError|MaxRetryError)[^\\n]{0,40}HTTPSConnectionPool\\(host='[\\w.-]{1,80}'[^\\n]{0,60})"),
      any('(502 Bad Gateway|503 Service Unavailable)[^\\n]{0,40}huggingface'),
    ],
  },
  {
    id: 'server.nccl',
    category: 'server-startup-failed',
    cause: 'nccl',
    strength: S,
    description: 'NCCL failed between the tensor-parallel workers: {1} (check --shm-size / --ipc=host, NCCL_P2P_DISABLE, the driver)',
    indications: [
      any('(NCCL error[^\\n]{0,20}: (?:unhandled (?:cuda|system) error|internal error|invalid usage|remote process exited)[^\\n]{0,80})'),
      any('(ncclInternalError[^\\n]{0,80})'),
      any('(ncclSystemError[^\\n]{0,80})'),
      any('(ncclUnhandledCudaError[^\\n]{0,80})'),
      any('(DistBackendError: NCCL[^\\n]{0,100})'),
      any('(NCCL WARN [^\\n]{0,120})'),
    ],
  },
  {
    id: 'server.torch-compile',
    category: 'server-startup-failed',
    cause: 'torch-compile',
    strength: S,
    description: 'torch.compile failed while the server started: {1}',
    indications: [any('(BackendCompilerFailed: [^\\n]{0,120})'), any('(InductorError: [^\\n]{0,120})')],
  },
  {
    id: 'timeout.readiness',
    category: 'timeout',
    cause: 'server-never-ready',
    strength: S,
    description: 'The server never became ready: {1}',
    indications: [
      any('((?:Server|vLLM server|API server) (?:did not become|never became|was not) ready[^\\n]{0,80})', 'i'),
      any('(Gave up waiting for [^\\n]{0,80})'),
      any('(Timed out waiting for (?:the )?server[^\\n]{0,80})', 'i'),
      any('(readiness (?:check|probe|wait) (?:failed|timed out|exhausted)[^\\n]{0,80})', 'i'),
    ],
  },
  {
    id: 'timeout.nccl-watchdog',
    category: 'timeout',
    cause: 'collective-timeout',
    strength: S,
    description: 'A collective operation timed out: {1}',
    indications: [any('(Watchdog caught collective operation timeout[^\\n]{0,120})')],
  },
  {
    id: 'timeout.limit',
    category: 'timeout',
    cause: 'time-limit',
    strength: S,
    description: '{1}',
    indications: [
      any('((?:Benchmark|Test|Sandbox|Agent benchmark(?: \\(wheel mode\\))?) (?:timed out|timeout) after \\d{1,6}\\s?s\\w{0,6})'),
      any('(Benchmark exceeded \\d{1,6}s timeout)'),
    ],
  },
];
