import type { Role, Run } from '../model';

/**
 * Model substitutions the Docker flat pipeline made at run time while storing the original name
 * (`MODEL_OVERRIDES`, research §4.2): the effective model differs from the stored one.
 */
const DOCKER_MODEL_OVERRIDES: Array<[RegExp, string]> = [
  [/^meta-llama\/Llama-3\.1-8B-Instruct$/, 'meta-llama/Meta-Llama-3-8B-Instruct'],
  [/^meta-llama\/Llama-3\.1-70B-Instruct$/, 'meta-llama/Meta-Llama-3-70B-Instruct'],
  [/^ibm-ai-platform\/Bamba-9B(?:-v2)?$/, 'meta-llama/Meta-Llama-3-8B-Instruct'],
];

export function effectiveModel(run: Run): string | null {
  if (!run.model) return null;
  if (run.source === 'docker') for (const [re, to] of DOCKER_MODEL_OVERRIDES) if (re.test(run.model)) return to;
  return run.model;
}

/**
 * The serving client each role of the Docker flat pipeline really ran (research §4.2, §7.12): the
 * perf command's arguments were replaced by hard-coded ones that differ per role.
 */
function effectiveWorkload(run: Run): string | null {
  if (run.source === 'docker' && run.benchmarkMode === 'serving') {
    return { human: 'sonnet dataset 256/64 (script of the commit)', agent: 'random dataset 256/64 (baseline script)', baseline: 'sonnet dataset (v0.6.0 script, perf-command args)' }[run.role];
  }
  if (!run.command) return null;
  const ds = /--dataset-name[= ](\S+)/.exec(run.command)?.[1];
  const script = /(benchmark_\w+\.py|bench\s+\w+)/.exec(run.command)?.[1];
  return [script, ds ? `dataset ${ds}` : null].filter(Boolean).join(', ') || run.command;
}

/** Comparability is checked, never assumed (DESIGN §5). */
export function comparability(roles: Partial<Record<Role, Run | null>>): { ok: boolean; reasons: string[] } {
  const runs = (['baseline', 'human', 'agent'] as const).map(r => roles[r]).filter((r): r is Run => !!r);
  const reasons: string[] = [];
  const differ = <T>(label: string, f: (r: Run) => T | null) => {
    const vals = runs.map(r => [r.role, f(r)] as const).filter(([, v]) => v !== null && v !== undefined);
    if (new Set(vals.map(([, v]) => String(v))).size > 1) reasons.push(`${label} differ: ${vals.map(([role, v]) => `${role} ${String(v)}`).join('; ')}`);
  };
  differ('models', effectiveModel);
  differ('benchmark workloads', effectiveWorkload);
  differ('GPU configurations', r => r.gpuConfig);
  differ('source pipelines', r => r.source);
  return { ok: reasons.length === 0, reasons };
}
