import { shellWords } from './terminal';
import { planRun, PlanError, type HostConfig, type RunPlan } from '../core/run/plan';
import { formsByRole } from '../app/runs';
import { resolveTarget, type Target } from './target';

export interface PlanArgs {
  folder: string;
  commit: string;
  role: string;
  host: string;
  gpus: number;
  recipes: string[];
  agentPatch?: string;
  /** A vLLM checkout: which form (old script or `vllm bench`) each commit can run. */
  checkout?: string;
  json: boolean;
}

/** `bench-triage plan`: what a run would do, decided and checked, without running anything. */
export async function planCommand(a: PlanArgs, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let t: Target;
  try {
    t = await resolveTarget(a.folder, a.commit, a.role, a.agentPatch);
  } catch (e) {
    err(`bench-triage plan: ${(e as Error).message}\n`);
    return 2;
  }
  const { commit, roles, patchPath: patch } = t;
  const host: HostConfig = { label: a.host, docker: a.host, gpus: a.gpus };
  const plans: RunPlan[] = [];
  let failed = false;
  const forms = await formsByRole(commit, roles, a.checkout);
  if (!a.checkout) err('plan: no --checkout: the command runs in the form the dataset states (old script or `vllm bench`), unchecked against the commit\n');
  for (const role of roles) {
    try {
      plans.push(planRun(commit, role, { host, recipes: a.recipes, agentPatch: patch, runId: 'planned', forms: forms.get(role) ?? null }));
    } catch (e) {
      failed = true;
      err(`${role}: ${e instanceof PlanError || e instanceof Error ? e.message : String(e)}\n`);
    }
  }
  if (a.json) out(JSON.stringify(plans, null, 2));
  else
    for (const p of plans) {
      out(`${p.role} of ${p.commit.slice(0, 12)} on ${p.host.label} (${p.host.gpus} GPU${p.host.gpus === 1 ? '' : 's'})`);
      out(`  image      ${p.image}${p.agentPatch ? ` + agent patch ${p.agentPatch}` : ''}`);
      for (const r of p.recipes) out(`  recipe     ${r.id}: ${r.title}`);
      if (p.translation) {
        out(
          `  translated ${p.translation.from === 'cli' ? '`vllm bench`' : 'the old script'} → ${p.translation.to === 'cli' ? '`vllm bench`' : 'the old script'}: ${p.translation.why}`,
        );
        out(`             from: ${p.translation.original}`);
        for (const n of p.translation.notes) out(`             · ${n}`);
        for (const d of p.translation.differences) out(`             ! still differs: ${d}`);
      }
      if (p.server) out(`  server     ${shellWords(p.server.argv)}\n  readiness  GET ${p.server.readiness.url} (≤ ${p.server.readiness.timeoutS} s)`);
      const own = Object.entries(p.env).filter(([k]) => k !== 'PYTHONUNBUFFERED' && k !== 'VLLM_WORKER_MULTIPROC_METHOD');
      if (own.length) out(`  env        ${shellWords(own.map(([k, v]) => `${k}=${v}`))} (from the perf command)`);
      if (p.host.gpus === 0 && p.tensorParallel >= 1)
        out(
          `  ! --gpus 0: the run asks for ${p.tensorParallel} GPU${p.tensorParallel === 1 ? '' : 's'}; this host gives it none (a host without GPUs, e.g. a test engine)`,
        );
      out(`  benchmark  ${shellWords(p.benchmark.argv)}\n  script     ${p.benchmark.scriptSource}\n  metrics    ${p.metrics}\n  results    ${p.resultDir}`);
      const detailed = {
        'in-argv': '--save-detailed',
        'check-at-launch': '--save-detailed if the script defines it (checked at launch)',
        always: 'kept by the 2024 script itself',
        none: 'none (offline benchmark)',
      }[p.benchmark.detailed];
      out(`  per-request ${detailed}`);
    }
  return failed ? 1 : 0;
}
