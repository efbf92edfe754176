import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { ownerHere } from '../platform/processAlive';
import { writeJsonAtomic } from './atomicJson';
import type { BuildPlan } from '../core/run/buildPlan';
import { BUILD_SCHEMA, type BuildRecord } from '../core/run/records';

export function newBuildId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
}

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
