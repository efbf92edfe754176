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
  const runtime = new DockerRuntime(a.host);
  const runner = new Runner(runtime, new HostQueue(a.host.gpus, a.host.maxParallel), events(err));
  const secrets = Object.entries(a.env).filter(([k]) => /TOKEN|SECRET|KEY|PASSWORD/i.test(k)).map(([, v]) => v);
  const records: RunRecord[] = await Promise.all(plans.map(plan => runner.run({
    plan, folder: a.folder, agentPatch: plan.role === 'agent' ? patchText : null, checkout: a.checkout ?? null, env: a.env, secrets,
    model: t.commit.models[0] ?? null, agent: plan.role === 'agent' ? t.agentRun?.agent ?? null : null, benchmarkTimeoutS: a.benchmarkTimeoutS, signal,
  })));
  for (const r of records) out(path.join(a.folder, r.plan.resultDir, 'result.json'));
  return records.every(r => r.status === 'succeeded') ? 0 : 1;
}

/** `bench-triage resume`: re-attach to this folder's unfinished runs on the host and complete them. */
export async function resumeCommand(folder: string, host: HostConfig, out: (s: string) => void, err: (s: string) => void, signal?: AbortSignal): Promise<number> {
  const runner = new Runner(new DockerRuntime(host), new HostQueue(host.gpus, host.maxParallel), events(err));
  const records = await runner.resume(folder, signal);
  if (!records.length) err(`no unfinished runs of ${folder} on ${host.label}\n`);
  for (const r of records) out(path.join(folder, r.plan.resultDir, 'result.json'));
  return records.every(r => r.status === 'succeeded') ? 0 : 1;
}
