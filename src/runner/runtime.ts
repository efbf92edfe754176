import type { Writable } from 'node:stream';

/** The little of a container engine the runner needs; `dockerRuntime.ts` implements it with dockerode. */
export interface ContainerSpec {
  image: string;
  name: string;
  labels: Record<string, string>;
  env: Record<string, string>;
  cmd: string[];
  /** GPU indices to expose (NVIDIA runtime); empty = none. */
  gpuIds: string[];
  workdir?: string;
}

export interface ContainerState {
  running: boolean;
  status: string;
  exitCode: number | null;
  oomKilled: boolean;
  error: string;
}
export interface ExecOutcome {
  exitCode: number | null;
  stdout: Buffer;
  stderr: Buffer;
}
export interface HostFacts {
  serverVersion: string;
  runtimes: string[];
  ncpu: number;
  memBytes: number;
}
export interface LabelledContainer {
  id: string;
  labels: Record<string, string>;
  state: string;
}

export interface ExecOptions {
  /** Where stdout/stderr go as they arrive (demultiplexed, byte-exact); collected when absent. */
  stdout?: Writable;
  stderr?: Writable;
  /** Start and return at once (the process keeps running in the container). */
  detach?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ContainerRuntime {
  /** `label (url)`, for messages. */
  readonly where: string;
  ping(signal?: AbortSignal): Promise<void>;
  facts(): Promise<HostFacts>;
  hasImage(image: string): Promise<boolean>;
  pull(image: string, signal?: AbortSignal): Promise<void>;
  create(spec: ContainerSpec): Promise<string>;
  /** Extracts a tar archive into `dir` of the container. */
  putArchive(id: string, dir: string, tar: Buffer | NodeJS.ReadableStream): Promise<void>;
  /** Starts it; on a cluster engine, waits (cancellably) until the scheduler has placed it. */
  start(id: string, signal?: AbortSignal): Promise<void>;
  exec(id: string, argv: string[], opts?: ExecOptions): Promise<ExecOutcome>;
  inspect(id: string): Promise<ContainerState | null>;
  remove(id: string): Promise<void>;
  list(label: string): Promise<LabelledContainer[]>;
}
