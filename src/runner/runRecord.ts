import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { OWN_SCHEMA } from '../core/ingest';
import { writeJsonAtomic } from './atomicJson';
import type { RunPlan } from '../core/run/plan';
import type { RunRecord } from '../core/run/records';

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
