import { dict } from '../model';
import type { Commit, Role, Run } from '../model';
import { ROLES } from '../model';
import { commandWorkload } from '../perfcmd';
import { WORKLOAD_KEYS, workloadNumber, type WorkloadValue } from '../model';
import { modeFromCommand } from '../ingest';
import { metricDef } from '../metrics';

/**
 * Comparability is checked, never assumed (README: How verdicts are made): the same model, the same normalised
 * benchmark command, the same GPU configuration, and the same pipeline and script version.
 * Every failed check is a reason in plain words.
 */

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

/** What wrote a result: the pipeline and, where one pipeline had several writers, the schema. */
const PIPELINES: Record<string, string> = {
  S1: 'Modal 3-way runner',
  S2: 'Docker flat runner (run_3way_benchmarks.py)',
  S3: 'legacy local-Docker runner',
  S4: 'Docker verification (hand-written)',
  S5: 'Docker rerun script',
  S6: 'hand-written separate_* file',
  S7: '4_fixable rerun script',
  S8: 'SGLang Modal runner',
  S9: 'OmniPerf test-script runner',
  S10: 'native perf-command runner',
  BT1: 'Bench Triage runner',
  // The field's tools: one pipeline per tool, whatever its form (old script or `vllm bench`);
  // the forms' different defaults are made explicit in the workload instead.
  'vllm-serve': "vLLM's serving benchmark",
  'vllm-throughput': "vLLM's throughput benchmark",
  'vllm-latency': "vLLM's latency benchmark",
  'sglang-serve': "SGLang's bench_serving",
  guidellm: 'GuideLLM',
  aiperf: 'AIPerf',
};
export const pipelineOf = (r: Run) =>
  `${PIPELINES[r.provenance.schema] ?? r.provenance.schema}${r.source === 'separate' && r.provenance.schema === 'S2' ? ' (separate_*)' : ''}`;

/**
 * The serving client each role of the Docker flat pipeline really ran (research §4.2, §7.12): the
 * perf command's arguments were replaced by hard-coded ones that differ per role.
 */
const DOCKER_SERVING: Record<Role, string> = {
  human: 'sonnet dataset, 256 in / 64 out, 100 prompts (script of the commit)',
  agent: "random dataset, 256 in / 64 out, 100 prompts (baseline's script)",
  baseline: "sonnet dataset with the perf command's other arguments (v0.6.0 script)",
};

/**
 * The benchmark a run's output shows it ran, whatever its command says: a serving result block
 * (requests, TTFT/TPOT), a latency result, a throughput result. Null when the output says nothing.
 */
export function modeOfOutput(run: Run): Run['benchmarkMode'] {
  const m = run.metrics,
    c = run.counts;
  if (c.successful_requests !== undefined || m.ttft_mean_ms !== undefined || m.tpot_mean_ms !== undefined || m.itl_mean_ms !== undefined) return 'serving';
  if (m.latency_avg_ms !== undefined || m.latency_p50_ms !== undefined) return 'latency';
  return null;
}

/** The mode of a run: what it says of itself, else what its output shows, else its command's or its commit's. */
export function modeOfRun(run: Run, commit?: Commit | null): Run['benchmarkMode'] {
  return (
    run.benchmarkMode ??
    modeOfOutput(run) ??
    (run.command ? modeFromCommand(run.command) : null) ??
    commit?.benchmarkMode ??
    modeFromCommand(commit?.perfCommands[0]?.command)
  );
}

/** Metric keys the run reported, stored in a field or printed in its output: a script version's fingerprint. */
function reportedMetrics(run: Run): string[] {
  return Object.keys(run.metrics)
    .filter(k => metricDef(k)?.kind === 'metric')
    .sort();
}

/** The run's printed result block was read (some metric is vouched for, or added, by its own output). */
const printedOutput = (run: Run) => Object.values(run.metricSources).some(m => m.evidence === 'printed' || m.evidence === 'raw');

/** The run's output was cut at its end (only its head kept): its result block, where the metrics are printed, may be what was cut. */
const outputCut = (run: Run) => run.logs.some(l => l.truncation?.kind === 'head');

/** A run's workload: what its result file records, and what its perf command asks (defaults explicit). */
export interface RunWorkload {
  /** The benchmark kind of the command (serving …), or null without one. */
  kind: string | null;
  values: Partial<Record<string, WorkloadValue>>;
  /** Flags outside the shared vocabulary, when the run has a command. */
  flags: Record<string, string> | null;
  /** Where the file and the command disagree: the field, both values and where each was read. */
  conflicts: Array<{ key: string; file: WorkloadValue; command: WorkloadValue }>;
}

const label = (k: string) => (WORKLOAD_KEYS as Record<string, string>)[k] ?? k;
const TOKENS_TOLERANCE = 0.01;
/** Two workload values are the same: equal text, or total input tokens within 1 % (tokenizers round differently). */
function same(key: string, a: string, b: string): boolean {
  if (a === b) return true;
  if (key !== 'input_tokens') return false;
  const x = Number(a),
    y = Number(b);
  return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= TOKENS_TOLERANCE * Math.max(x, y);
}

/**
 * What a run's own counts say of its workload, for runs whose file records no settings (the
 * ISO-Bench pipelines, the runner): the requests a serving benchmark completed and the input
 * tokens it sent. 100 requests are not 2 048, whatever the perf command asked for.
 */
function countsWorkload(run: Run): Run['workload'] & object {
  const out: NonNullable<Run['workload']> = dict();
  const c = run.counts;
  if (run.status === 'success' && modeOfRun(run) === 'serving') {
    if (typeof c.successful_requests === 'number' && !run.failedRequests)
      out.num_prompts = { value: workloadNumber(c.successful_requests), from: 'the successful requests it recorded' };
    if (typeof c.total_input_tokens === 'number') out.input_tokens = { value: workloadNumber(c.total_input_tokens), from: 'the input tokens it recorded' };
  }
  return out;
}

const runWorkloads = new WeakMap<Run, RunWorkload>();
export function runWorkload(run: Run): RunWorkload {
  let w = runWorkloads.get(run);
  if (w) return w;
  const cmd = run.command ? commandWorkload(run.command) : null;
  const values: RunWorkload['values'] = { ...(cmd?.values ?? {}) };
  const conflicts: RunWorkload['conflicts'] = [];
  for (const [k, v] of Object.entries(run.workload ?? countsWorkload(run))) {
    const c = values[k];
    if (c && !same(k, c.value, v.value)) conflicts.push({ key: k, file: v, command: c });
    values[k] = v; // what ran, as the file recorded it
  }
  w = { kind: cmd?.kind ?? null, values, flags: cmd ? cmd.flags : null, conflicts };
  runWorkloads.set(run, w);
  return w;
}

/** The differences between runs' workloads, one reason per field, naming every value and where it was read. */
export function workloadDifferences(runs: readonly Run[]): string[] {
  const loads = runs.map(r => ({ r, w: runWorkload(r) }));
  const reasons: string[] = [];
  const withKind = loads.filter(x => x.w.kind);
  if (new Set(withKind.map(x => x.w.kind)).size > 1) {
    reasons.push(`benchmark scripts differ: ${withKind.map(x => `${x.r.role} ${x.w.kind}`).join(', ')}`);
    return reasons;
  }
  const keys = [...new Set(loads.flatMap(x => Object.keys(x.w.values)))];
  for (const k of keys) {
    const have = loads.filter(x => x.w.values[k]);
    if (have.length < 2) continue;
    const first = have[0].w.values[k]!.value;
    if (have.every(x => same(k, first, x.w.values[k]!.value))) continue;
    reasons.push(`workloads differ on ${label(k)}: ${have.map(x => `${x.r.role} ${x.w.values[k]!.value} (${x.w.values[k]!.from})`).join(', ')}`);
  }
  // Flags outside the vocabulary (engine flags …): compared where every run has a command.
  const cmds = loads.filter(x => x.w.flags);
  if (cmds.length > 1) {
    const flags = [...new Set(cmds.flatMap(x => Object.keys(x.w.flags!)))].sort();
    for (const f of flags) {
      const vals = cmds.map(x => [x.r.role, x.w.flags![f] ?? '(not set)'] as const);
      if (new Set(vals.map(([, v]) => v)).size > 1) reasons.push(`workloads differ on ${f}: ${vals.map(([role, v]) => `${role} ${v}`).join(', ')}`);
    }
  }
  return reasons;
}

export interface ComparabilityOptions {
  /** Compare runs whose benchmark had failed requests (`--allow-failed-requests`). */
  allowFailedRequests?: boolean;
}

/** A failed-requests finding in words, for a reason or a tree line. */
export function failedRequestsText(r: Run): string | null {
  const f = r.failedRequests;
  if (!f) return null;
  return `${f.failed}${f.total !== null ? ` of ${f.total}` : ''} requests failed (${f.field})${f.firstError ? `, first error: ${f.firstError}` : ''}`;
}

/** Plain-words reasons two or three roles did not run the same thing; empty when they did. */
export function comparability(
  roles: Partial<Record<Role, Run | null>>,
  commit?: Commit | null,
  opts: ComparabilityOptions = {},
): { ok: boolean; reasons: string[]; notes: string[] } {
  const runs = ROLES.map(r => roles[r]).filter((r): r is Run => !!r);
  const reasons: string[] = [];
  const differ = <T>(label: string, f: (r: Run) => T | null, show: (r: Run, v: T) => string = (_r, v) => String(v)) => {
    const vals = runs.map(r => [r, f(r)] as const).filter(([, v]) => v !== null && v !== undefined);
    if (new Set(vals.map(([, v]) => String(v))).size > 1) reasons.push(`${label} differ: ${vals.map(([r, v]) => `${r.role} ${show(r, v as T)}`).join('; ')}`);
  };
  // A model the pipeline swapped at run time is named with what the file says.
  differ('models', effectiveModel, (r, v) => (v !== r.model ? `${v} (the file says ${r.model}; the Docker flat runner swapped it)` : v));
  differ('GPU configurations', r => r.gpuConfig);
  differ('pipelines', pipelineOf);
  // A benchmark whose requests failed is not a clean measurement.
  if (!opts.allowFailedRequests)
    for (const r of runs) {
      const t = r.status === 'success' ? failedRequestsText(r) : null;
      if (t) reasons.push(`${r.role}: ${t}; its numbers are not compared (allow it with --allow-failed-requests)`);
    }
  // Workloads: the Docker flat pipeline's per-role clients, else the normalised workloads.
  const docker = runs.filter(r => r.source === 'docker' && modeOfRun(r, commit) === 'serving');
  if (docker.length > 1) {
    const kinds = new Set(docker.map(r => DOCKER_SERVING[r.role]));
    if (kinds.size > 1)
      reasons.push(
        `benchmark workloads differ (the Docker flat runner ignored the perf command's arguments): ${docker.map(r => `${r.role}: ${DOCKER_SERVING[r.role]}`).join('; ')}`,
      );
  }
  // A run that did not run what its command says: a reason, unless every role ran the same other
  // thing (then they still compare with each other, and a note says the command is not what ran).
  const notes: string[] = [];
  const byKey = new Map<string, Array<{ r: Run; c: RunWorkload['conflicts'][number] }>>();
  for (const r of runs) for (const c of runWorkload(r).conflicts) (byKey.get(c.key) ?? byKey.set(c.key, []).get(c.key)!).push({ r, c });
  for (const [k, list] of byKey) {
    const shared = list.length === runs.length && new Set(list.map(x => `${x.c.file.value}|${x.c.command.value}`)).size === 1;
    const say = (x: (typeof list)[number]) =>
      `${x.r.role}: its result file says ${label(k)} ${x.c.file.value} (${x.c.file.from}) but its command says ${x.c.command.value} (${x.c.command.from})`;
    if (shared && runs.length > 1)
      notes.push(
        `every role ran ${label(k)} ${list[0].c.file.value} (${list[0].c.file.from}), not the ${list[0].c.command.value} its command says (${list[0].c.command.from})`,
      );
    else reasons.push(...list.map(say));
  }
  reasons.push(...workloadDifferences(runs));
  // Without a command or a recorded workload, the metrics each script printed stand in for its version.
  const described = runs.filter(r => r.command || r.workload);
  if (described.length < runs.length) {
    // Only a role whose printed output we have (and whose end was not cut) is a witness of what its script did not print.
    const sets = runs
      .filter(r => r.status === 'success' && printedOutput(r) && !outputCut(r))
      .map(r => [r.role, reportedMetrics(r)] as const)
      .filter(([, k]) => k.length);
    if (new Set(sets.map(([, k]) => k.join(','))).size > 1) {
      const all = new Set(sets.flatMap(([, k]) => k));
      const missing = sets
        .map(([role, k]) => {
          const lack = [...all].filter(x => !k.includes(x));
          return lack.length ? `${role} lacks ${lack.map(x => metricDef(x)?.label ?? x).join(', ')}` : null;
        })
        .filter(Boolean);
      reasons.push(`the roles' outputs report different metrics, a sign of different benchmark script versions (${missing.join('; ')})`);
    }
  }
  return { ok: reasons.length === 0, reasons, notes };
}

/** Two runs of one role count as attempts of the same measurement. */
export function sameMeasurement(a: Run, b: Run, commit?: Commit | null): boolean {
  if (pipelineOf(a) !== pipelineOf(b) || effectiveModel(a) !== effectiveModel(b) || (a.gpuConfig ?? '') !== (b.gpuConfig ?? '')) return false;
  if (modeOfRun(a, commit) !== modeOfRun(b, commit)) return false;
  if ((a.command || a.workload) && (b.command || b.workload)) return workloadDifferences([a, b]).length === 0;
  return reportedMetrics(a).join(',') === reportedMetrics(b).join(',');
}
