import type { Commit, Role, Run } from '../model';
import { ROLES } from '../model';
import { parsePerfCommand, SCRIPT_FLAGS } from '../perfcmd';
import { modeFromCommand } from '../ingest';
import { metricDef } from '../metrics';

/**
 * Comparability is checked, never assumed (DESIGN §5): the same model, the same normalised
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
};
export const pipelineOf = (r: Run) =>
  `${PIPELINES[r.provenance.schema] ?? r.provenance.schema}${r.source === 'separate' && r.provenance.schema === 'S2' ? ' (separate_*)' : ''}`;

/** Flags that do not change the workload: where results go, how the client reaches the server, logging. */
const NOT_WORKLOAD = new Set([
  '--model',
  '--tokenizer',
  '--served-model-name',
  '--host',
  '--port',
  '--base-url',
  '--save-result',
  '--save-detailed',
  '--result-dir',
  '--result-filename',
  '--metadata',
  '--disable-tqdm',
  '--output-json',
  '--trust-remote-code',
  '--download-dir',
  '--disable-log-stats',
  '--disable-log-requests',
  '--profile',
  '--profile-result-dir',
  '--percentile-metrics',
  '--metric-percentiles',
  '--append-result',
]);

/** Workload-relevant engine flags belong to the server, whoever names them. */
const ALIASES: Record<string, string> = { '-tp': '--tensor-parallel-size', '--dataset': '--dataset-path' };

export interface Workload {
  /** serving | throughput | latency | prefix_caching | the script name */
  kind: string;
  /** Workload flags with their values (defaults filled in from the script's documentation). */
  params: Record<string, string>;
}

/** Workloads by command text: a folder's runs share a handful of commands. */
const workloads = new Map<string, Workload | null>();

/** The workload a perf command runs: script kind and workload flags, defaults made explicit. */
export function workloadOf(command: string): Workload | null {
  let w = workloads.get(command);
  if (w === undefined) {
    if (workloads.size > 5000) workloads.clear();
    workloads.set(command, (w = computeWorkload(command)));
  }
  return w;
}

function computeWorkload(command: string): Workload | null {
  const p = parsePerfCommand(command);
  if (!p.script) return null;
  const params: Record<string, string> = {};
  for (const f of p.flags) {
    const name = ALIASES[f.name] ?? f.name;
    if (NOT_WORKLOAD.has(name)) continue;
    let value = f.value?.text ?? 'true';
    if (name === '--dataset-path') value = value.slice(value.lastIndexOf('/') + 1);
    params[name] = value;
  }
  if (p.kind)
    for (const [flag, doc] of Object.entries(SCRIPT_FLAGS[p.kind])) {
      const name = ALIASES[flag] ?? flag;
      if (
        doc.default !== undefined &&
        !(name in params) &&
        !NOT_WORKLOAD.has(name) &&
        [
          '--num-prompts',
          '--request-rate',
          '--dataset-name',
          '--input-len',
          '--output-len',
          '--batch-size',
          '--num-iters',
          '--random-input-len',
          '--random-output-len',
          '--sonnet-input-len',
          '--sonnet-output-len',
          '--burstiness',
          '--n',
        ].includes(name)
      )
        params[name] = `${doc.default} (default)`;
    }
  return { kind: p.kind ?? p.script, params };
}

/**
 * The serving client each role of the Docker flat pipeline really ran (research §4.2, §7.12): the
 * perf command's arguments were replaced by hard-coded ones that differ per role.
 */
const DOCKER_SERVING: Record<Role, string> = {
  human: 'sonnet dataset, 256 in / 64 out, 100 prompts (script of the commit)',
  agent: "random dataset, 256 in / 64 out, 100 prompts (baseline's script)",
  baseline: "sonnet dataset with the perf command's other arguments (v0.6.0 script)",
};

export function modeOfRun(run: Run, commit?: Commit | null): Run['benchmarkMode'] {
  return run.benchmarkMode ?? (run.command ? modeFromCommand(run.command) : null) ?? commit?.benchmarkMode ?? modeFromCommand(commit?.perfCommands[0]?.command);
}

/** Metric keys the run's own fields reported (not added from its raw output): a script version's fingerprint. */
function reportedMetrics(run: Run): string[] {
  return Object.keys(run.metrics)
    .filter(k => metricDef(k)?.kind === 'metric' && run.metricSources[k]?.evidence !== 'raw')
    .sort();
}

const strip = (v: string) => v.replace(/ \(default\)$/, '');

/** Plain-words reasons two or three roles did not run the same thing; empty when they did. */
export function comparability(roles: Partial<Record<Role, Run | null>>, commit?: Commit | null): { ok: boolean; reasons: string[] } {
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
  // Workloads: the Docker flat pipeline's per-role clients, else the normalised commands.
  const docker = runs.filter(r => r.source === 'docker' && modeOfRun(r, commit) === 'serving');
  if (docker.length > 1) {
    const kinds = new Set(docker.map(r => DOCKER_SERVING[r.role]));
    if (kinds.size > 1)
      reasons.push(
        `benchmark workloads differ (the Docker flat runner ignored the perf command's arguments): ${docker.map(r => `${r.role}: ${DOCKER_SERVING[r.role]}`).join('; ')}`,
      );
  }
  const loads = runs.map(r => ({ r, w: r.command ? workloadOf(r.command) : null }));
  const known = loads.filter((x): x is { r: Run; w: Workload } => !!x.w);
  if (known.length > 1) {
    const kinds = new Set(known.map(x => x.w.kind));
    if (kinds.size > 1) reasons.push(`benchmark scripts differ: ${known.map(x => `${x.r.role} ${x.w.kind}`).join(', ')}`);
    else {
      const flags = new Set(known.flatMap(x => Object.keys(x.w.params)));
      for (const f of [...flags].sort()) {
        const vals = known.map(x => [x.r.role, x.w.params[f] ?? '(not set)'] as const);
        if (new Set(vals.map(([, v]) => strip(v))).size > 1) reasons.push(`${vals.map(([role, v]) => `${role}: ${f} ${v}`).join(', ')}`);
      }
    }
  }
  // Without commands for every role, the metrics each script printed stand in for its version.
  if (known.length < runs.length) {
    const sets = runs
      .filter(r => r.status === 'success')
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
  return { ok: reasons.length === 0, reasons };
}

/** Two runs of one role count as attempts of the same measurement. */
export function sameMeasurement(a: Run, b: Run, commit?: Commit | null): boolean {
  if (pipelineOf(a) !== pipelineOf(b) || effectiveModel(a) !== effectiveModel(b) || (a.gpuConfig ?? '') !== (b.gpuConfig ?? '')) return false;
  if (modeOfRun(a, commit) !== modeOfRun(b, commit)) return false;
  const wa = a.command ? workloadOf(a.command) : null,
    wb = b.command ? workloadOf(b.command) : null;
  if (wa && wb) return wa === wb || JSON.stringify(wa) === JSON.stringify(wb);
  return reportedMetrics(a).join(',') === reportedMetrics(b).join(',');
}
