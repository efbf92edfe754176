import * as path from 'node:path';
import { Builds } from '../app/builds';
import { BuildPlanError, type BuildSettings } from '../core/run/buildPlan';
import type { HostConfig } from '../core/run/hosts';
import { resolveTarget } from './target';

export interface BuildArgs {
  folder: string;
  commit: string;
  role: string;
  host: HostConfig;
  checkout?: string;
  rebuild: boolean;
  dryRun: boolean;
  json: boolean;
  settings: BuildSettings;
}

/**
 * `bench-triage build`: builds the image a role runs on, from the local vLLM checkout, through the
 * same app-layer Builds as the extension. The stream goes to build.log (its path on stdout, with
 * --json the record); progress by step on stderr. Exit 0 when the image is there (built or reused).
 */
export async function buildCommand(
  a: BuildArgs,
  out: (s: string) => void,
  err: (s: string) => void,
  signal?: AbortSignal,
  builds = new Builds(),
): Promise<number> {
  const folder = path.resolve(a.folder);
  if (a.role !== 'baseline' && a.role !== 'human') {
    err(`--role must be baseline or human (the agent runs on the baseline image); got ${a.role}\n`);
    return 2;
  }
  const t = await resolveTarget(folder, a.commit, a.role);
  const target = { folder, commit: t.commit, role: a.role } as const;
  const options = { host: a.host, checkout: a.checkout ? path.resolve(a.checkout) : null, settings: a.settings, rebuild: a.rebuild };
  if (a.dryRun) {
    try {
      out(JSON.stringify(builds.plan(target, options), null, 2));
      return 0;
    } catch (e) {
      err(`refused: ${(e as Error).message}\n`);
      return 1;
    }
  }
  let last = '';
  const stop = builds.onEvent(b => {
    const r = b.record;
    const line = `[${r.role} image ${r.tag}] ${r.status}${r.step ? ` · Step ${r.step.n}/${r.step.total} : ${r.step.text}` : ''}`;
    if (line !== last) err(`${line}\n`);
    last = line;
  });
  try {
    const r = await builds.start(target, options, signal);
    const dir = path.join(folder, '.bench-triage', 'builds', r.commit.slice(0, 12), r.buildId);
    if (r.error) err(`${r.status}: ${r.error}\n`);
    out(a.json ? JSON.stringify({ ...r, dir }, null, 2) : path.join(dir, r.log));
    return r.status === 'succeeded' || r.status === 'reused' ? 0 : 1;
  } catch (e) {
    if (e instanceof BuildPlanError) {
      err(`refused: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    stop();
  }
}
