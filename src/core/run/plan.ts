import type { Commit, Role } from '../model';
import { formFor, parsePerfCommand, translateCommand, type BenchForms, type PerfProblem } from '../perfcmd';
import { C } from './containerPaths';
import { recipe, type Recipe } from './recipes';

import { inRegistry, type HostConfig } from './hosts';
export type { HostConfig } from './hosts';

export interface ImageTemplates {
  human: string;
  baseline: string;
}
export const DEFAULT_TEMPLATES: ImageTemplates = { human: 'anonymous/vllm-bench:{commit}', baseline: 'anonymous/vllm-baseline:baseline-{parent12}' };

/** The image templates in force: each one given (settings, flags) where set, else the default. */
export const imageTemplatesOf = (t?: Partial<ImageTemplates> | null): ImageTemplates => ({
  human: t?.human || DEFAULT_TEMPLATES.human,
  baseline: t?.baseline || DEFAULT_TEMPLATES.baseline,
});

export interface PlanOptions {
  host: HostConfig;
  templates?: ImageTemplates;
  recipes?: string[];
  /** Agent patch (model_patch.diff), for the agent role. */
  agentPatch?: string | null;
  /** Readiness limit for the server (s). */
  serverTimeoutS?: number;
  runId: string;
  /** What the commit whose benchmarks run can run (from a vLLM checkout); null when unknown. */
  forms?: BenchForms | null;
}

/** The perf command in the other form, because the commit under test has only that one. */
export interface PlanTranslation {
  from: 'script' | 'cli';
  to: 'script' | 'cli';
  why: string;
  original: string;
  command: string;
  notes: string[];
  differences: string[];
}

export interface RunPlan {
  commit: string;
  parent: string | null;
  role: Role;
  host: HostConfig;
  image: string;
  agentPatch: string | null;
  env: Record<string, string>;
  recipes: Recipe[];
  /** null for offline benchmarks (latency, throughput, prefix caching). */
  server: { argv: string[]; port: number; readiness: { url: string; timeoutS: number } } | null;
  benchmark: {
    script: string;
    scriptSource: string;
    argv: string[];
    /**
     * Per-request samples: `--save-detailed` in the argv, asked for at launch when the script
     * defines it (scripts from the image, unknown here), or not needed (2024 scripts always keep them).
     */
    detailed: 'in-argv' | 'check-at-launch' | 'always' | 'none';
  };
  /** Set when the command runs in the other form than the dataset states. */
  translation: PlanTranslation | null;
  /** GPUs the run takes on its host (the tensor-parallel size). */
  tensorParallel: number;
  metrics: 'save-result-json' | 'printed-block';
  resultDir: string;
}

export class PlanError extends Error {
  constructor(
    message: string,
    readonly problems: PerfProblem[] = [],
  ) {
    super(message);
  }
}

const fill = (t: string, v: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k) => v[k] ?? `{${k}}`);
const templateVars = (commit: Pick<Commit, 'hash' | 'parent'>) => ({
  commit: commit.hash,
  commit8: commit.hash.slice(0, 8),
  commit12: commit.hash.slice(0, 12),
  parent: commit.parent ?? '',
  parent12: (commit.parent ?? '').slice(0, 12),
});

/** The image a role runs on (the agent runs on the baseline's): what a run pulls and a build tags. */
export function imageFor(commit: Pick<Commit, 'hash' | 'parent'>, role: Role, templates: ImageTemplates = DEFAULT_TEMPLATES): string {
  return fill(role === 'human' ? templates.human : templates.baseline, templateVars(commit));
}

/** Where a run's files go, relative to the folder: known from its id before anything is planned. */
export const runResultDir = (commit: string, role: Role, runId: string) => `.bench-triage/runs/${commit.slice(0, 8)}/${role}/${runId}`;

/**
 * (commit, role, host, options) → everything the runner will do, decided before anything runs.
 * Refuses commands with placeholders or shell operators, and GPU needs the host cannot meet.
 */
export function planRun(commit: Commit, role: Role, opts: PlanOptions): RunPlan {
  const stated = commit.perfCommands[0]?.command;
  if (!stated) throw new PlanError(`commit ${commit.hash.slice(0, 12)} has no perf command: nothing to benchmark`);
  // The form the commit under test can run: the old script or `vllm bench`, translated with the defaults explicit.
  let translation: PlanTranslation | null = null;
  let command = stated;
  const choice = formFor(parsePerfCommand(stated), opts.forms ?? null);
  if (choice) {
    const t = translateCommand(stated, choice.to);
    if ('error' in t) throw new PlanError(`refused: ${t.error}`);
    translation = { from: t.from, to: t.to, why: choice.why, original: stated, command: t.command, notes: t.notes, differences: t.differences };
    command = t.command;
  }
  const parsed = parsePerfCommand(command, { hostGpus: opts.host.gpus });
  // Engine flags on a serving command are meant for the server: the plan moves them there.
  const blocking = parsed.problems.filter(p => p.severity === 'error' && p.code !== 'server-flag');
  if (blocking.length)
    throw new PlanError(`refused: ${blocking.map(p => p.message).join('; ')} (perf command of ${commit.hash.slice(0, 12)}: ${command})`, blocking);
  if (!parsed.kind || parsed.form === 'sglang') throw new PlanError(`refused: ${parsed.script ?? 'the command'} is not a supported vLLM benchmark script`);
  if (!parsed.model)
    throw new PlanError(
      `refused: the perf command names no --model, so the server to start is unknown (perf command of ${commit.hash.slice(0, 12)}: ${command})`,
    );
  if (role !== 'human' && !commit.parent)
    throw new PlanError(`the parent of ${commit.hash.slice(0, 12)} is unknown, so the baseline image cannot be named; add it to a mapping file or the dataset`);
  if (role === 'agent' && !opts.agentPatch) throw new PlanError(`no agent patch for ${commit.hash.slice(0, 12)}: pick a model_patch.diff`);
  const image = inRegistry(imageFor(commit, role, opts.templates), opts.host);
  const benchCommit = role === 'human' ? commit.hash : commit.parent!;
  const script = parsed.script!.startsWith('vllm bench') ? parsed.script! : `benchmarks/${parsed.script}`;
  const serverFlags = new Set(parsed.problems.filter(p => p.code === 'server-flag').map(p => String(p.data?.flag)));
  const engineArgs: string[] = [];
  const args: string[] = [];
  for (const f of parsed.flags) {
    const words = f.value ? [f.name, f.value.text] : [f.name];
    (serverFlags.has(f.name) ? engineArgs : args).push(...words);
  }
  const port = 8000;
  const serving = parsed.kind === 'serving';
  // The serving client writes its numbers with --save-result; offline scripts differ by version,
  // so their printed result block is parsed (core/logs/printedMetrics).
  const supportsSaveResult = serving;
  const resultDir = runResultDir(commit.hash, role, opts.runId);
  // Scripts are copied to C.src in the container (from the commit's checkout, or from the image).
  const benchArgv = script.startsWith('vllm bench') ? [...script.split(' '), ...args] : ['python3', `${C.src}/${script}`, ...args];
  // Every new serving run keeps per-request samples (TTFT, TPOT, E2E): the CLI and 2025 scripts
  // on --save-detailed, 2024 scripts always; a script whose flags are unknown here is asked at launch.
  let detailed: RunPlan['benchmark']['detailed'] = 'none';
  if (serving) {
    benchArgv.push('--host', '127.0.0.1', '--port', String(port), ...(args.includes('--save-result') ? [] : ['--save-result']), '--result-dir', C.results);
    const cli = parsed.form === 'cli';
    const flags = opts.forms?.scriptFlags;
    if (args.includes('--save-detailed') || cli || flags?.includes('--save-detailed')) {
      if (!args.includes('--save-detailed')) benchArgv.push('--save-detailed');
      detailed = 'in-argv';
    } else detailed = flags ? 'always' : 'check-at-launch';
  }
  return {
    commit: commit.hash,
    parent: commit.parent,
    role,
    host: opts.host,
    image,
    agentPatch: role === 'agent' ? opts.agentPatch! : null,
    // The perf command's own `NAME=value` prefix (VLLM_USE_V1=1 …) is part of what ran: kept, after the runner's defaults.
    env: { PYTHONUNBUFFERED: '1', VLLM_WORKER_MULTIPROC_METHOD: 'spawn', ...Object.fromEntries(parsed.env.map(e => [e.name, e.value])) },
    recipes: (opts.recipes ?? []).map(recipe),
    server: serving
      ? {
          argv: ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', parsed.model!, '--host', '127.0.0.1', '--port', String(port), ...engineArgs],
          port,
          readiness: { url: `http://127.0.0.1:${port}/health`, timeoutS: opts.serverTimeoutS ?? 600 },
        }
      : null,
    benchmark: {
      script,
      scriptSource: parsed.script!.startsWith('vllm bench') ? 'the installed vLLM CLI' : `git show ${benchCommit}:${script}`,
      argv: benchArgv,
      detailed,
    },
    translation,
    tensorParallel: parsed.tensorParallel,
    metrics: supportsSaveResult ? 'save-result-json' : 'printed-block',
    resultDir,
  };
}
