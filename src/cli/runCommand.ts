import * as path from 'node:path';
import type { HostConfig } from '../core/run/hosts';
import { formsByRole, PlanRefused, Runs, type RunSettings, type RunTarget } from '../app/runs';
import { resolveTarget } from './target';
import { secretEnvOf } from './secretEnv';

export interface RunArgs {
  folder: string;
  commit: string;
  role: string;
  host: HostConfig;
  recipes: string[];
  dryRun: boolean;
  agentPatch?: string;
  checkout?: string;
  templates?: { human?: string; baseline?: string };
  env: Record<string, string>;
  serverTimeoutS?: number;
  benchmarkTimeoutS?: number;
  /** Names of environment variables of this process whose values go to the run as secrets. */
  secretEnv?: string[];
}

/** Progress of the runs on stderr, one line per state change, phase and note. */
function follow(runs: Runs, err: (s: string) => void): () => void {
  return runs.onEvent(e => {
    const r = e.run.record;
    if (e.kind === 'state') err(`[${r.role}] ${r.status}${r.error ? `: ${r.error}` : ''}\n`);
    else if (e.kind === 'phase' && e.phase) err(`[${r.role}] ${e.phase.name}${e.phase.exitCode == null ? ' …' : ` exited ${e.phase.exitCode}`}\n`);
    else if (e.line) err(`[${r.role}] ${e.line}\n`);
  });
}

/** The CLI's run settings, as the extension builds them from its settings: the same plan gives the same run.json. */
export function cliRunSettings(a: RunArgs, secretEnv: Record<string, string>, env: Record<string, string>): RunSettings {
  return {
    host: a.host,
    recipes: a.recipes,
    templates: { human: a.templates?.human, baseline: a.templates?.baseline },
    serverTimeoutS: a.serverTimeoutS,
    benchmarkTimeoutS: a.benchmarkTimeoutS,
    env,
    secretEnv,
    checkout: a.checkout ?? null,
  };
}

/**
 * `bench-triage run`: plans each requested role, then runs them on the host (queued by its GPUs),
 * through the same app-layer Runs as the extension's Rerun. Exit 0 when every role produced
 * metrics; the result.json paths go to stdout, progress to stderr.
 */
export async function runCommand(a: RunArgs, out: (s: string) => void, err: (s: string) => void, signal?: AbortSignal, runs = new Runs()): Promise<number> {
  const folder = path.resolve(a.folder);
  const t = await resolveTarget(folder, a.commit, a.role, a.agentPatch);
  const target: RunTarget = {
    folder,
    commit: t.commit,
    roles: t.roles,
    agentRun: t.agentRun,
    agentPatch: t.patchPath ? path.resolve(folder, t.patchPath) : null,
  };
  let secretEnv: Record<string, string>;
  try {
    secretEnv = secretEnvOf(a.secretEnv ?? []);
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  // An --env whose name says it is secret is treated as one (with a hint): better masked than leaked.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.env)) {
    if (/TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i.test(k)) {
      secretEnv[k] = v;
      err(`--env ${k}: treated as a secret (masked, kept out of docker inspect); prefer --secret-env ${k}\n`);
    } else env[k] = v;
  }
  const plain = cliRunSettings(a, secretEnv, env);
  const settings = plain.checkout ? { ...plain, forms: await formsByRole(target.commit, target.roles, plain.checkout) } : plain;
  if (a.dryRun) {
    try {
      // What would run, whole: the --env entries in the environment, secrets by name only.
      const plans = runs.plan(target, settings).map(p => ({ ...p, env: { ...p.env, ...env }, secretEnv: Object.keys(secretEnv) }));
      out(JSON.stringify(plans, null, 2));
      return 0;
    } catch (e) {
      refusals(e, err);
      return 1;
    }
  }
  const stop = follow(runs, err);
  try {
    const records = await runs.start(target, settings, signal);
    for (const r of records) out(path.join(folder, r.plan.resultDir, 'result.json'));
    return records.every(r => r.status === 'succeeded') ? 0 : 1;
  } catch (e) {
    if (e instanceof PlanRefused) {
      refusals(e, err);
      return 1;
    }
    throw e;
  } finally {
    stop();
  }
}

function refusals(e: unknown, err: (s: string) => void): void {
  if (e instanceof PlanRefused)
    for (const r of e.refusals) err(`${r.role}: ${r.role === 'agent' && r.message.startsWith('cannot read') ? '' : 'refused: '}${r.message}\n`);
  else err(`${e instanceof Error ? e.message : String(e)}\n`);
}

/** `bench-triage resume`: re-attach to this folder's unfinished runs on the host and complete them. */
export async function resumeCommand(
  folder: string,
  host: HostConfig,
  out: (s: string) => void,
  err: (s: string) => void,
  signal?: AbortSignal,
  secretNames: string[] = [],
): Promise<number> {
  const runs = new Runs();
  let given: Record<string, string>;
  try {
    given = secretEnvOf(secretNames);
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  const stop = follow(runs, err);
  // Secrets not given again are read back from the run's container (they were written there).
  const records = await runs.resume(folder, host, names => Object.fromEntries(names.filter(n => n in given).map(n => [n, given[n]])), signal).finally(stop);
  if (!records.length) err(`no unfinished runs of ${folder} on ${host.label}\n`);
  for (const r of records) out(path.join(folder, r.plan.resultDir, 'result.json'));
  return records.every(r => r.status === 'succeeded') ? 0 : 1;
}
