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
  /** The runtime containers get when they name none (swarm tasks cannot name one). */
  defaultRuntime?: string;
}
export interface LabelledContainer {
  id: string;
  labels: Record<string, string>;
  /** The engine's state, or WITHDRAWN_STATE: a cluster run's command that gave up its place in a slot's line before it ran anything. */
  state: string;
}
/** A run whose command withdrew from its GPU slot's line (to move to a slot freed first) and ended there: nothing of it ran. */
export const WITHDRAWN_STATE = 'withdrawn';

export interface ExecOptions {
  /** Where stdout/stderr go as they arrive (demultiplexed, byte-exact); collected when absent. */
  stdout?: Writable;
  stderr?: Writable;
  /** Start and return at once (the process keeps running in the container). */
  detach?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A run's first phase as the container may launch it: the helper's launch argv, and the marker that claims the launch (made before it). */
export interface FirstPhase {
  argv: string[];
  marker: string;
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
  /**
   * Starts it; on a cluster engine, waits (cancellably) until the scheduler has placed it. A
   * cluster's GPU slot may launch `first` inside the container itself as it takes its GPUs (no
   * round trip between the run before's death and the phase); `launchedFirst` says whether it did.
   */
  start(id: string, signal?: AbortSignal, first?: FirstPhase): Promise<void>;
  launchedFirst?(id: string): boolean;
  /** On a cluster's GPU slot: when the run's container took its GPUs, on its node's clock (ISO). */
  gpusHeldAt?(id: string): string | null;
  /**
   * On a cluster's GPU slot, once the run is over: every other process of its container ended and
   * its GPUs handed to the slot's next run before the container is removed; when they were free
   * (the node's clock, ISO), or null when they are left to the container's death.
   */
  giveBack?(id: string): Promise<string | null>;
  /** On a cluster engine, the node (its host name) the run was placed on, once started. */
  nodeOf?(id: string): Promise<string | null>;
  /** On a cluster engine, what was lost when a run's container could not be reached (its node down, drained, removed). */
  lostWhy?(id: string): Promise<string | null>;
  /** On a cluster engine: why the cluster took the run's node away (down, drained, removed), or null while its node is fine. */
  nodeLost?(id: string): Promise<string | null>;
  /** On a cluster engine, the image reference the run was created with (pinned by digest when from a registry). */
  imageOf?(id: string): Promise<string | null>;
  /** On a cluster engine, the node's pull of the image before the run started, when it had to pull. */
  pullOf?(id: string): Promise<{ node: string; seconds: number } | null>;
  /**
   * On a cluster engine: how long the run waited to be placed (GPUs free on a node), whether its
   * placement was seen as its node made its container (an event) or by polling, and, when it moved
   * from behind a run under way to a slot that freed first, the two nodes and how long it had waited.
   */
  waitOf?(id: string): Promise<{ seconds: number; seenBy: 'event' | 'poll'; moved?: { from: string; to: string; waitedS: number } } | null>;
  /** On a cluster engine: whether a running task has its run's files (put once placed), so that its phases can run. */
  filesIn?(id: string): Promise<boolean>;
  exec(id: string, argv: string[], opts?: ExecOptions): Promise<ExecOutcome>;
  inspect(id: string): Promise<ContainerState | null>;
  remove(id: string): Promise<void>;
  list(label: string): Promise<LabelledContainer[]>;
}

/** What an image build is given: the Dockerfile's path inside the context, build args and labels. */
export interface ImageBuildOptions {
  tag: string;
  dockerfile: string;
  buildargs: Record<string, string>;
  labels: Record<string, string>;
  /** Every step again (Rebuild), not from the engine's layer cache. */
  nocache?: boolean;
  signal?: AbortSignal;
  /** Every chunk of the engine's response as it arrives (its JSON messages, undecoded). */
  onChunk: (chunk: Buffer) => void;
}

/** The image side of an engine: builds (classic builder, streamed), and the images they leave. */
export interface ImageRuntime {
  readonly where: string;
  ping(signal?: AbortSignal): Promise<void>;
  /** The image's full id, or null when the host does not have it. */
  imageId(ref: string): Promise<string | null>;
  pull(image: string, signal?: AbortSignal): Promise<void>;
  /** Pushes a registry's image from the host; resolves with the digest the registry gave it. */
  push(image: string, signal?: AbortSignal): Promise<string>;
  /** Sends the context (a tar stream) and resolves when the engine's response has ended. */
  build(context: NodeJS.ReadableStream, opts: ImageBuildOptions): Promise<void>;
  /** Removes an image (untagged parents with no other use go with it); absent is not an error. */
  removeImage(id: string): Promise<void>;
  /** Containers by id prefix, removed by force; absent is not an error. */
  remove(id: string): Promise<void>;
  inspect(id: string): Promise<ContainerState | null>;
  /** Short ids (12 hex) of every image on the host, intermediate ones included. */
  imageIds(): Promise<Set<string>>;
}
