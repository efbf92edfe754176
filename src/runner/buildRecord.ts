import { BUILD_RECORD_SCHEMA } from '../core/ingest';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { writeJsonAtomic } from './atomicJson';
import type { BuildPlan, BuildRole } from './buildPlan';
import type { HostKind } from './hosts';

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

export function newBuildId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
}

export const ownerHere = () => `${hostname()}:${process.pid}`;

export function initialBuildRecord(plan: BuildPlan, checkout: string | null): BuildRecord {
  return {
    schema: BUILD_SCHEMA,
    buildId: plan.buildId,
    commit: plan.commit,
    role: plan.role,
    source: plan.source,
    base: plan.base,
    tag: plan.tag,
    args: plan.args,
    host: { kind: plan.host.kind, label: plan.host.label, docker: plan.host.docker, gpus: plan.host.gpus },
    status: 'queued',
    error: null,
    imageId: null,
    step: null,
    createdAt: new Date().toISOString(),
    startedAt: null,
    endedAt: null,
    durationS: null,
    log: 'build.log',
    dockerfile: 'Dockerfile',
    checkout,
    logBytes: 0,
    owner: ownerHere(),
  };
}

export const saveBuildRecord = (dir: string, r: BuildRecord) => writeJsonAtomic(path.join(dir, 'build.json'), r);
