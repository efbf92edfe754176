import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Role } from '../core/model';
import { DockerRuntime } from '../runner/dockerRuntime';
import { Runner, type RunEvents } from '../runner/execute';
import { HostQueue } from '../runner/hostQueue';
import type { HostConfig } from '../runner/hosts';
import { DEFAULT_TEMPLATES, planRun, PlanError, type RunPlan } from '../runner/plan';
import { newRunId, type RunRecord } from '../runner/runRecord';
import { resolveTarget } from './target';

export interface RunArgs {
  folder: string; commit: string; role: string; host: HostConfig; recipes: string[]; dryRun: boolean;
  agentPatch?: string; checkout?: string; templates?: { human?: string; baseline?: string };
  env: Record<string, string>; serverTimeoutS?: number; benchmarkTimeoutS?: number;
  /** Names of environment variables of this process whose values go to the run as secrets. */
  secretEnv?: string[];
}

/** Values of `--secret-env NAME…` from this process's environment; a name that is not set is an error naming it. */
export function secretEnvOf(names: readonly string[], env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new Error(`--secret-env ${n}: not an environment variable name`);
    const v = env[n];
    if (!v) throw new Error(`--secret-env ${n}: the variable is not set in this environment (export it first; its value is never written anywhere but the container)`);
    out[n] = v;
  }
  return out;
}

const events = (err: (s: string) => void): RunEvents => ({
  state: r => err(`[${r.role}] ${r.status}${r.error ? `: ${r.error}` : ''}\n`),
  phase: (r, p) => err(`[${r.role}] ${p.name}${p.exitCode == null ? ' …' : ` exited ${p.exitCode}`}\n`),
  note: (r, line) => err(`[${r.role}] ${line}\n`),
});

/** Runs before anything touches Docker: every role planned, or the refusals listed. */
function planAll(a: RunArgs, roles: Role[], commit: Parameters<typeof planRun>[0], patch: string | null, err: (s: string) => void): RunPlan[] | null {
  const plans: RunPlan[] = [];
  let refused = false;
  for (const role of roles) {
    try {
      plans.push(planRun(commit, role, { host: a.host, recipes: a.recipes, agentPatch: patch, runId: newRunId(), serverTimeoutS: a.serverTimeoutS,
        templates: { human: a.templates?.human ?? DEFAULT_TEMPLATES.human, baseline: a.templates?.baseline ?? DEFAULT_TEMPLATES.baseline } }));
    } catch (e) { refused = true; err(`${role}: refused: ${e instanceof PlanError || e instanceof Error ? e.message : String(e)}\n`); }
  }
  return refused ? null : plans;
}

/**
 * `bench-triage run`: plans each requested role, then runs them on the host (queued by its GPUs).
 * Exit 0 when every role produced metrics; the result.json paths go to stdout, progress to stderr.
 */
export async function runCommand(a: RunArgs, out: (s: string) => void, err: (s: string) => void, signal?: AbortSignal): Promise<number> {
  const t = await resolveTarget(a.folder, a.commit, a.role, a.agentPatch);
  const patchPath = t.patchPath ? path.resolve(a.folder, t.patchPath) : null;
  const plans = planAll(a, t.roles, t.commit, patchPath, err);
  if (!plans) return 1;
  if (a.dryRun) { out(JSON.stringify(plans, null, 2)); return 0; }
  let patchText: string | null = null;
  if (plans.some(p => p.role === 'agent')) {
    try { patchText = readFileSync(patchPath!, 'utf8'); } catch (e) { err(`agent: cannot read the patch ${patchPath}: ${(e as Error).message}\n`); return 1; }
  }
  let secretEnv: Record<string, string>;
  try { secretEnv = secretEnvOf(a.secretEnv ?? []); } catch (e) { err(`${(e as Error).message}\n`); return 2; }
  // An --env whose name says it is secret is treated as one (with a hint): better masked than leaked.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.env)) {
    if (/TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i.test(k)) { secretEnv[k] = v; err(`--env ${k}: treated as a secret (masked, kept out of docker inspect); prefer --secret-env ${k}\n`); }
    else env[k] = v;
  }
  const runtime = new DockerRuntime(a.host);
  const runner = new Runner(runtime, new HostQueue(a.host.gpus, a.host.maxParallel), events(err));
  const records: RunRecord[] = await Promise.all(plans.map(plan => runner.run({
    plan, folder: a.folder, agentPatch: plan.role === 'agent' ? patchText : null, checkout: a.checkout ?? null, env, secretEnv,
    model: t.commit.models[0] ?? null, agent: plan.role === 'agent' ? t.agentRun?.agent ?? null : null, benchmarkTimeoutS: a.benchmarkTimeoutS, signal,
  })));
  for (const r of records) out(path.join(a.folder, r.plan.resultDir, 'result.json'));
  return records.every(r => r.status === 'succeeded') ? 0 : 1;
}

/** `bench-triage resume`: re-attach to this folder's unfinished runs on the host and complete them. */
export async function resumeCommand(folder: string, host: HostConfig, out: (s: string) => void, err: (s: string) => void, signal?: AbortSignal, secretNames: string[] = []): Promise<number> {
  const runner = new Runner(new DockerRuntime(host), new HostQueue(host.gpus, host.maxParallel), events(err));
  let given: Record<string, string>;
  try { given = secretEnvOf(secretNames); } catch (e) { err(`${(e as Error).message}\n`); return 2; }
  // Secrets not given again are read back from the run's container (they were written there).
  const records = await runner.resume(folder, signal, names => Object.fromEntries(names.filter(n => n in given).map(n => [n, given[n]])));
  if (!records.length) err(`no unfinished runs of ${folder} on ${host.label}\n`);
  for (const r of records) out(path.join(folder, r.plan.resultDir, 'result.json'));
  return records.every(r => r.status === 'succeeded') ? 0 : 1;
}
