// What run.json and build.json hold, and which of their states are final: the runner writes
// them, the front ends and the ingest read them.
import { BUILD_RECORD_SCHEMA } from '../ingest';
import type { Role } from '../model';
import type { BuildRole } from './buildPlan';
import type { HostKind } from './hosts';
import type { RunPlan } from './plan';

export const RECORD_SCHEMA = 'bench-triage.run-record/v1';
export type RunState = 'queued' | 'preflight' | 'running' | 'succeeded' | 'failed' | 'timeout' | 'cancelled' | 'interrupted' | 'agent-patch-failed' | 'refused';
export const FINAL_STATES: readonly RunState[] = ['succeeded', 'failed', 'timeout', 'cancelled', 'interrupted', 'agent-patch-failed', 'refused'];

export interface PhaseRecord {
  name: string;
  argv: string[];
  cwd: string;
  launchedAt: string | null;
  endedAt: string | null;
  exitCode: number | null;
  /** Log files relative to the run folder. */
  stdout: string;
  stderr: string;
}

/** run.json: everything about one run, rewritten atomically at each step (the runner resumes from it). */
export interface RunRecord {
  schema: typeof RECORD_SCHEMA;
  runId: string;
  commit: string;
  role: Role;
  host: { kind?: HostKind; label: string; docker: string; gpus: number };
  image: string;
  plan: RunPlan;
  recipes: string[];
  status: RunState;
  error: string | null;
  exitCode: number | null;
  containerId: string | null;
  /** On a swarm, the node the run's task was placed on (its host name). */
  node?: string | null;
  /** On a swarm, the image as the task ran it: `registry/name@sha256:…` for a registry's image. */
  imageRef?: string | null;
  /** Seconds the node took to pull the image before the run started (apart from the run's own time); null when it had it. */
  pullS?: number | null;
  /**
   * On a swarm's GPU slot, the node's clock: when the run's container took its GPUs, and when no
   * process of it was left and they went back to the slot (null when left to the container's death).
   */
  slotGpus?: { heldAt: string; freedAt: string | null } | null;
  gpuIds: string[];
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  durationS: number | null;
  phases: PhaseRecord[];
  readinessS: number | null;
  benchmarkScripts: string | null;
  metrics: Record<string, number>;
  metricsSource: 'save-result-json' | 'printed-block' | null;
  /** Per-request samples from vLLM's detailed result JSON, by canonical metric (in its unit). */
  samples?: Record<string, number[]>;
  /** Names of the extra environment variables (values are never stored). */
  envNames: string[];
  /** Names of the secret environment variables: a re-attaching runner masks their values too (from its caller, or from the container). */
  secretNames: string[];
  runnerLog: string;
  /** `<hostname>:<pid>` of the runner driving the run; another runner re-attaches only when that process is gone. */
  owner: string;
}

export const BUILD_SCHEMA = BUILD_RECORD_SCHEMA;
export type BuildState = 'queued' | 'preparing' | 'building' | 'succeeded' | 'reused' | 'failed' | 'cancelled' | 'interrupted';
export const FINAL_BUILD_STATES: readonly BuildState[] = ['succeeded', 'reused', 'failed', 'cancelled', 'interrupted'];

/** build.json: one image build, rewritten atomically at each step; `scan` reads it (detector BT2). */
export interface BuildRecord {
  schema: typeof BUILD_SCHEMA;
  buildId: string;
  commit: string;
  role: BuildRole;
  /** The commit whose source was built. */
  source: string;
  base: string;
  tag: string;
  args: Record<string, string>;
  host: { kind?: HostKind; label: string; docker: string; gpus: number };
  status: BuildState;
  error: string | null;
  imageId: string | null;
  /** The image the tag pointed at before a rebuild (removed when nothing uses it). */
  replaced?: string;
  /** On a swarm with a registry: the image as pushed (`registry/name@sha256:…`) and how long the push took. */
  pushed?: { ref: string; s: number };
  step: { n: number; total: number; text: string } | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  durationS: number | null;
  /** Relative to the build's folder: the engine's stream, and the Dockerfile that was used. */
  log: string;
  dockerfile: string;
  checkout: string | null;
  /** Bytes of build.log. */
  logBytes: number;
  /** `<hostname>:<pid>` of the process driving it: a build whose process is gone is interrupted. */
  owner: string;
}
