import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { ROLES } from '../core/model';
import { SAFE_ID } from '../core/campaign/records';
import { parseRecord } from '../core/campaign/records';
import { ReadRefused, readTextBounded } from '../platform/boundedRead';
import { saveRecord } from './runRecord';
import { FINAL_STATES, RECORD_SCHEMA, type RunRecord, type RunState } from '../core/run/records';
import { BUILD_SCHEMA, type BuildRecord, type BuildState } from '../core/run/records';

/**
 * run.json and build.json read back as input: each names files the tool then opens (logs, the
 * Dockerfile) and a state it acts on (re-attach, settle, re-run). A record that is damaged,
 * planted or too big is a finding naming the file and field; the files it names stay inside its
 * folder.
 */
const RECORD_CAP = 8 * 1024 * 1024;

const RUN_STATES = ['queued', 'preflight', 'running', ...FINAL_STATES] as const satisfies readonly RunState[];
const BUILD_STATES = ['queued', 'preparing', 'building', 'succeeded', 'reused', 'failed', 'cancelled', 'interrupted'] as const satisfies readonly BuildState[];

/** A file of the run's own folder: relative, no `..`, no absolute or drive part. */
const OwnFile = z
  .string()
  .max(1024)
  .refine(s => s.length > 0 && !path.isAbsolute(s) && !/^[A-Za-z]:/.test(s) && !s.split(/[\\/]/).includes('..') && !s.includes('\0'), {
    message: 'names a file outside the run’s folder',
  });
const Time = z.string().max(64).nullable();
const Host = z.looseObject({ label: z.string().max(2048), docker: z.string().max(4096), gpus: z.number().int().min(0).max(1024) });

const RunRecordSchema = z.looseObject({
  schema: z.literal(RECORD_SCHEMA),
  runId: z.string().regex(SAFE_ID, 'is not a run id'),
  commit: z.string().max(200),
  role: z.enum(ROLES),
  host: Host,
  image: z.string().max(4096),
  plan: z.looseObject({ resultDir: z.string().max(4096) }),
  recipes: z.array(z.string().max(256)).max(1000),
  status: z.enum(RUN_STATES),
  error: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  containerId: z.string().max(256).nullable(),
  node: z.string().max(256).nullable().optional(),
  imageRef: z.string().max(4096).nullable().optional(),
  pullS: z.number().finite().min(0).nullable().optional(),
  slotGpus: z
    .object({ heldAt: z.string().max(64), freedAt: z.string().max(64).nullable() })
    .nullable()
    .optional(),
  gpuIds: z.array(z.string().max(64)).max(1024),
  createdAt: z.string().max(64),
  startedAt: Time,
  endedAt: Time,
  durationS: z.number().finite().min(0).nullable(),
  phases: z
    .array(
      z.looseObject({
        name: z.string().max(256),
        argv: z.array(z.string()),
        stdout: OwnFile,
        stderr: OwnFile,
        launchedAt: Time,
        endedAt: Time,
        exitCode: z.number().int().nullable(),
      }),
    )
    .max(256),
  metrics: z.record(z.string(), z.number()),
  envNames: z.array(z.string().max(256)),
  secretNames: z.array(z.string().max(256)),
  runnerLog: OwnFile,
  owner: z.string().max(512),
});

const BuildRecordSchema = z.looseObject({
  schema: z.literal(BUILD_SCHEMA),
  buildId: z.string().regex(SAFE_ID, 'is not a build id'),
  commit: z.string().max(200),
  status: z.enum(BUILD_STATES),
  error: z.string().nullable(),
  log: OwnFile,
  dockerfile: OwnFile,
  logBytes: z.number().int().min(0),
  owner: z.string().max(512),
});

export type RecordResult<T> = { ok: true; record: T } | { ok: false; missing: boolean; finding: string };

async function readRecord<T>(file: string, schema: z.ZodType, label: string): Promise<RecordResult<T>> {
  let text: string;
  try {
    text = await readTextBounded(file, { maxBytes: RECORD_CAP, what: label });
  } catch (e) {
    if (e instanceof ReadRefused) return { ok: false, missing: false, finding: e.message };
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === 'ENOENT' || code === 'ENOTDIR', finding: `${file}: cannot be read (${code ?? (e as Error).message})` };
  }
  const r = parseRecord(schema, text, file);
  return r.ok ? { ok: true, record: r.value as T } : { ok: false, missing: false, finding: r.finding };
}

/** `<dir>/run.json`, validated. */
export const readRunRecord = (dir: string) => readRecord<RunRecord>(path.join(dir, 'run.json'), RunRecordSchema, 'the run record');

/** `<dir>/build.json`, validated. */
export const readBuildRecord = (dir: string) => readRecord<BuildRecord>(path.join(dir, 'build.json'), BuildRecordSchema, 'the build record');

/**
 * The run's record as it really ended. A runner writes result.json, then the final run.json: a
 * process killed between the two leaves a finished run whose record still says it runs (and whose
 * container is gone, so nothing can re-attach). result.json decides then, and run.json is brought
 * in line with it — never run again. Null when run.json cannot be read.
 */
export async function settledRecord(dir: string): Promise<RunRecord | null> {
  const read = await readRunRecord(dir);
  if (!read.ok) return null;
  const r = read.record;
  if (FINAL_STATES.includes(r.status)) return r;
  let res: { status?: unknown; error?: unknown; durationS?: unknown; exitCode?: unknown };
  try {
    res = JSON.parse(await readTextBounded(path.join(dir, 'result.json'), { maxBytes: RECORD_CAP, what: 'the run result' })) as typeof res;
    if (!res || typeof res !== 'object') return r;
  } catch {
    return r;
  }
  if (typeof res.status !== 'string' || !FINAL_STATES.includes(res.status as RunState)) return r;
  const settled: RunRecord = {
    ...r,
    status: res.status as RunState,
    error: typeof res.error === 'string' ? res.error : r.error,
    durationS: typeof res.durationS === 'number' ? res.durationS : r.durationS,
    exitCode: typeof res.exitCode === 'number' ? res.exitCode : r.exitCode,
    endedAt: r.endedAt ?? new Date().toISOString(),
  };
  await saveRecord(dir, settled).catch(() => undefined);
  await fs
    .appendFile(
      path.join(dir, r.runnerLog),
      `${new Date().toISOString()} record settled from result.json: ${settled.status} (its runner ended before it wrote run.json)\n`,
    )
    .catch(() => undefined);
  return settled;
}
