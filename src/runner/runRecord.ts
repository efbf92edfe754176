import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { OWN_SCHEMA } from '../core/ingest';
import type { Role } from '../core/model';
import { writeJsonAtomic } from './atomicJson';
import type { RunPlan } from './plan';
import type { HostKind } from './hosts';

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

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
}

export const runDir = (folder: string, plan: Pick<RunPlan, 'resultDir'>) => path.join(folder, plan.resultDir);

export const saveRecord = (dir: string, r: RunRecord, mask?: (t: string) => string) => writeJsonAtomic(path.join(dir, 'run.json'), r, undefined, mask);

/** result.json in the `bench-triage.run/v1` schema that `scan` reads (detector BT1). */
export function resultOf(r: RunRecord, model: string | null, agent: string | null): Record<string, unknown> {
  return {
    schema: OWN_SCHEMA,
    commit: r.commit,
    role: r.role,
    status: r.status,
    error: r.error,
    metrics: r.metrics,
    agent,
    model,
    command: r.plan.benchmark.argv.join(' '),
    image: r.image,
    fixes: r.recipes,
    startedAt: r.startedAt,
    durationS: r.durationS,
    host: r.host.label,
    runId: r.runId,
    exitCode: r.exitCode,
    logs: [r.runnerLog, ...r.phases.flatMap(p => [p.stdout, p.stderr])],
    ...(r.samples ? { samples: r.samples } : {}),
  };
}

export const saveResult = (dir: string, r: RunRecord, model: string | null, agent: string | null, mask?: (t: string) => string) =>
  writeJsonAtomic(path.join(dir, 'result.json'), resultOf(r, model, agent), undefined, mask);
