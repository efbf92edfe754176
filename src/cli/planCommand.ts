import { statSync } from 'node:fs';
import { scan } from '../core/ingest';
import { nodeFileSource } from '../platform/nodeFileSource';
import { planRun, PlanError, type HostConfig, type RunPlan } from '../runner/plan';
import { ROLES, type Role } from '../core/model';

export interface PlanArgs { folder: string; commit: string; role: string; host: string; gpus: number; recipes: string[]; agentPatch?: string; json: boolean }

/** `bench-triage plan`: what a run would do, decided and checked, without running anything. */
export async function planCommand(a: PlanArgs, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  try { if (!statSync(a.folder).isDirectory()) throw new Error(); } catch { err(`bench-triage plan: ${a.folder} is not a folder\n`); return 2; }
  const roles: Role[] = a.role === 'all' ? [...ROLES] : (ROLES as readonly string[]).includes(a.role) ? [a.role as Role] : [];
  if (!roles.length) { err(`bench-triage plan: --role must be baseline, human, agent or all (got ${a.role})\n`); return 2; }
  const result = await scan(nodeFileSource(a.folder));
  const matches = result.commits.filter(c => c.hash.startsWith(a.commit.toLowerCase()));
  if (matches.length !== 1) { err(`bench-triage plan: ${matches.length ? `${a.commit} is ambiguous (${matches.map(c => c.hash.slice(0, 12)).join(', ')})` : `no commit ${a.commit} in ${a.folder}`}\n`); return 2; }
  const commit = matches[0];
  const patch = a.agentPatch ?? result.agentRuns.find(r => r.commit === commit.hash && r.patch && !r.patch.empty)?.patch?.path ?? null;
  const host: HostConfig = { label: a.host, docker: a.host, gpus: a.gpus };
  const plans: RunPlan[] = [];
  let failed = false;
  for (const role of roles) {
    try { plans.push(planRun(commit, role, { host, recipes: a.recipes, agentPatch: patch, runId: 'planned' })); }
    catch (e) { failed = true; err(`${role}: ${e instanceof PlanError || e instanceof Error ? e.message : String(e)}\n`); }
  }
  if (a.json) out(JSON.stringify(plans, null, 2));
  else for (const p of plans) {
    out(`${p.role} of ${p.commit.slice(0, 12)} on ${p.host.label} (${p.host.gpus} GPU${p.host.gpus === 1 ? '' : 's'})`);
    out(`  image      ${p.image}${p.agentPatch ? ` + agent patch ${p.agentPatch}` : ''}`);
    for (const r of p.recipes) out(`  recipe     ${r.id}: ${r.title}`);
    if (p.server) out(`  server     ${p.server.argv.join(' ')}\n  readiness  GET ${p.server.readiness.url} (≤ ${p.server.readiness.timeoutS} s)`);
    out(`  benchmark  ${p.benchmark.argv.join(' ')}\n  script     ${p.benchmark.scriptSource}\n  metrics    ${p.metrics}\n  results    ${p.resultDir}`);
  }
  return failed ? 1 : 0;
}
