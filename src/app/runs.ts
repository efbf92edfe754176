import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { AgentRun, Commit, Role } from '../core/model';
import { reservedEnvProblem } from '../core/perfcmd/reservedEnv';
import { DockerRuntime } from '../runner/dockerRuntime';
import { SwarmRuntime } from '../runner/swarmRuntime';
/** Gives the swarm back the GPU slots this process holds and no run uses (a command's end, the extension's deactivation). */
export { releaseSwarmSlots } from '../runner/swarmRuntime';
import { Runner, type RunEvents } from '../runner/execute';
import { HostQueue } from '../runner/hostQueue';
import { gpuRefusal, hostKind, runSlots, type HostConfig } from '../core/run/hosts';
import { imageTemplatesOf, planRun, PlanError, type ImageTemplates, type RunPlan } from '../core/run/plan';
import { benchFormsAt } from '../runner/containerFiles';
import { parsePerfCommand, type BenchForms } from '../core/perfcmd';
import { newRunId } from '../runner/runRecord';
import { FINAL_STATES, type PhaseRecord, type RunRecord } from '../core/run/records';
import { readRunRecord } from '../runner/recordRead';
import { ReadRefused, readTextBounded } from '../platform/boundedRead';
import { patchProblem } from '../core/patch';

/** An agent patch larger than this is refused (ISO-Bench's largest is a few hundred KB). */
const MAX_PATCH_BYTES = 16 * 1024 * 1024;
import type { ContainerRuntime } from '../runner/runtime';
import { RunKeys, type RunKey } from './identity';

/** The runtime that drives a host, by its kind (a plain engine, or a swarm manager whose tasks reserve GPUs). */
export type RuntimeFactory = (host: HostConfig) => ContainerRuntime;
export const runtimeFor: RuntimeFactory = host => {
  const kind = hostKind(host);
  switch (kind) {
    case 'docker':
      return new DockerRuntime(host);
    case 'swarm':
      return new SwarmRuntime(host);
  }
};

/** What to run: a commit of a results folder, some of its roles, and the agent run whose patch the agent role applies. */
export interface RunTarget {
  /** The results folder (absolute); runs go to `<folder>/.bench-triage/runs/…`. */
  folder: string;
  commit: Commit;
  roles: Role[];
  agentRun: AgentRun | null;
  /** The agent patch file (absolute); default: the agent run's model_patch.diff. */
  agentPatch?: string | null;
  /** A run id fixed in advance (one role only): a campaign records it before the run starts. */
  runId?: string;
}

/** How to run it: the host and everything settings or CLI options decide. */
export interface RunSettings {
  host: HostConfig;
  recipes?: string[];
  templates?: Partial<ImageTemplates>;
  serverTimeoutS?: number;
  benchmarkTimeoutS?: number;
  /** Plain environment (shows in docker inspect). */
  env?: Record<string, string>;
  /** Secret environment by name (masked everywhere, never in docker inspect). */
  secretEnv?: Record<string, string>;
  checkout?: string | null;
  /** What each role's benchmark commit can run (old script, `vllm bench`), from the checkout; see `formsByRole`. */
  forms?: ReadonlyMap<Role, BenchForms | null>;
}

/**
 * What the commit whose benchmarks each role runs can run — the human's commit, the parent for
 * baseline and agent — read from the vLLM checkout; a role maps to null when that is unknown.
 */
export async function formsByRole(commit: Commit, roles: readonly Role[], checkout: string | null | undefined): Promise<Map<Role, BenchForms | null>> {
  const out = new Map<Role, BenchForms | null>();
  const kind = parsePerfCommand(commit.perfCommands[0]?.command ?? '').kind;
  for (const role of roles) {
    const at = role === 'human' ? commit.hash : commit.parent;
    out.set(role, checkout && at && kind ? await benchFormsAt(checkout, at, kind).catch(() => null) : null);
  }
  return out;
}

/** Whether a host can take runs, and if not why (`kind` picks the remedy the editor offers). */
export type HostReadiness = { ok: true } | { ok: false; kind: 'no-gpu-runtime' | 'unreachable'; reason: string };

/** Every role refused, each with its reason (nothing ran). */
export class PlanRefused extends Error {
  constructor(readonly refusals: Array<{ role: Role; message: string }>) {
    // The plan's own "refused: " prefix is said once, by whoever shows this.
    super(refusals.map(r => `${r.role}: ${r.message.replace(/^refused:\s*/, '')}`).join('; '));
  }
}

/** A run this process knows: started or re-attached here (live), or read back from disk (history). */
export interface LiveRun {
  key: RunKey;
  host: HostConfig;
  folder: string;
  record: RunRecord;
  startedMs: number;
  endedMs: number | null;
  /** Read from run.json, not driven by this process. */
  fromDisk: boolean;
  ctl: AbortController | null;
}

export type RunsEvent = { kind: 'state' | 'phase' | 'note'; run: LiveRun; phase?: PhaseRecord; line?: string };

const patchPathOf = (t: RunTarget) => (t.agentPatch !== undefined ? t.agentPatch : t.agentRun?.patch ? path.resolve(t.folder, t.agentRun.patch.path) : null);
const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) || null : null);

/**
 * Plans, queues, starts, cancels and resumes runs, and reads their history from disk: the one run
 * path of the CLI (`run`, `resume`) and the extension (Rerun, Run N more, CodeLens). One queue
 * per host (runs ≤ its GPUs); every role is planned before anything runs.
 */
export class Runs {
  private readonly runs = new Map<string, LiveRun>();
  private readonly queues = new Map<string, HostQueue>();
  private readonly listeners = new Set<(e: RunsEvent) => void>();

  constructor(private readonly runtimes: RuntimeFactory = runtimeFor) {}

  private readonly readiness = new Map<string, { at: number; answer: Promise<HostReadiness> }>();

  /**
   * Whether a host can take a run at all (its engine answers; GPUs it promises have a runtime),
   * asked before anything is planned or recorded so that the editor says so before the click,
   * never as a refused attempt. Kept for a minute per host; `fresh` asks again.
   */
  hostReadiness(host: HostConfig, opts: { fresh?: boolean; signal?: AbortSignal } = {}): Promise<HostReadiness> {
    const key = JSON.stringify([host.label, host.docker, host.kind ?? '', host.gpus]);
    const hit = this.readiness.get(key);
    if (hit && !opts.fresh && Date.now() - hit.at < 60_000) return hit.answer;
    const answer = (async (): Promise<HostReadiness> => {
      const rt = this.runtimes(host);
      try {
        await rt.ping(opts.signal);
        const facts = await rt.facts();
        const refusal = gpuRefusal(host, facts.runtimes, rt.where);
        return refusal ? { ok: false, kind: 'no-gpu-runtime', reason: refusal } : { ok: true };
      } catch (e) {
        return { ok: false, kind: 'unreachable', reason: `${rt.where} does not answer: ${(e as Error).message}` };
      }
    })();
    this.readiness.set(key, { at: Date.now(), answer });
    return answer;
  }

  /** Listens to every state change, phase and note of the runs; returns the unsubscribe. */
  onEvent(fn: (e: RunsEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  list(): LiveRun[] {
    return [...this.runs.values()].sort((a, b) => b.startedMs - a.startedMs);
  }
  active(): LiveRun[] {
    return this.list().filter(r => !FINAL_STATES.includes(r.record.status));
  }
  get(key: RunKey): LiveRun | undefined {
    return this.runs.get(RunKeys.format(key));
  }

  /** Every role's plan, or PlanRefused naming each refused role. Nothing touches a host. */
  plan(t: RunTarget, s: RunSettings): RunPlan[] {
    const refusals: Array<{ role: Role; message: string }> = [];
    const plans: RunPlan[] = [];
    const templates = imageTemplatesOf(s.templates);
    // Every caller's environment (settings, CLI, a resumed campaign) meets the runner's reserved names here.
    const reserved = [...Object.keys(s.env ?? {}), ...Object.keys(s.secretEnv ?? {})].flatMap(n => reservedEnvProblem(n) ?? []);
    for (const role of t.roles) {
      if (reserved.length) {
        refusals.push({ role, message: `refused: run environment: ${reserved.join('; ')}` });
        continue;
      }
      try {
        plans.push(
          planRun(t.commit, role, {
            host: s.host,
            recipes: s.recipes ?? [],
            agentPatch: patchPathOf(t),
            runId: t.runId && t.roles.length === 1 ? t.runId : newRunId(),
            templates,
            serverTimeoutS: s.serverTimeoutS,
            forms: s.forms?.get(role) ?? null,
          }),
        );
      } catch (e) {
        refusals.push({ role, message: e instanceof PlanError || e instanceof Error ? e.message : String(e) });
      }
    }
    if (refusals.length) throw new PlanRefused(refusals);
    return plans;
  }

  /** Plans every role, then runs them on the host's queue; resolves with the final records. */
  async start(t: RunTarget, settings: RunSettings, signal?: AbortSignal): Promise<RunRecord[]> {
    const s = settings.forms || !settings.checkout ? settings : { ...settings, forms: await formsByRole(t.commit, t.roles, settings.checkout) };
    const plans = this.plan(t, s);
    const patchPath = patchPathOf(t);
    let patchText: string | null = null;
    if (plans.some(p => p.role === 'agent')) {
      try {
        patchText = await readTextBounded(patchPath!, { maxBytes: MAX_PATCH_BYTES, follow: true, what: 'the agent patch' });
      } catch (e) {
        if (e instanceof ReadRefused) throw new PlanRefused([{ role: 'agent', message: e.message }]);
        throw new PlanRefused([{ role: 'agent', message: `cannot read the patch ${patchPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
      }
      const problem = patchProblem(patchText);
      if (problem) throw new PlanRefused([{ role: 'agent', message: `the patch ${patchPath} ${problem}` }]);
    }
    const agent = t.agentRun?.agent ?? null;
    return Promise.all(
      plans.map(plan => {
        const ctl = new AbortController();
        const onAbort = () => ctl.abort();
        signal?.addEventListener('abort', onAbort, { once: true });
        const runner = new Runner(this.runtimes(s.host), this.queue(s.host), this.events(s.host, t.folder, ctl));
        return runner
          .run({
            plan,
            folder: t.folder,
            agentPatch: plan.role === 'agent' ? patchText : null,
            checkout: s.checkout ?? null,
            env: s.env ?? {},
            secretEnv: s.secretEnv ?? {},
            model: t.commit.models[0] ?? null,
            agent: plan.role === 'agent' ? agent : null,
            benchmarkTimeoutS: s.benchmarkTimeoutS,
            signal: ctl.signal,
          })
          .finally(() => signal?.removeEventListener('abort', onAbort));
      }),
    );
  }

  /** Cancels a queued or running run of this process (its container is removed, its logs kept). */
  cancel(key: RunKey): boolean {
    const r = this.runs.get(RunKeys.format(key));
    if (!r?.ctl || FINAL_STATES.includes(r.record.status)) return false;
    r.ctl.abort();
    return true;
  }

  /** Re-attaches to the folder's unfinished runs on the host and completes them. */
  async resume(
    folder: string,
    host: HostConfig,
    secretValues: (names: string[]) => Record<string, string> | Promise<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<RunRecord[]> {
    const ctl = new AbortController();
    signal?.addEventListener('abort', () => ctl.abort(), { once: true });
    const runner = new Runner(this.runtimes(host), this.queue(host), this.events(host, folder, ctl));
    return runner.resume(folder, ctl.signal, secretValues);
  }

  /**
   * The runs of a folder as their run.json files say (newest first), added to the list as
   * history unless this process knows them already. Bounded: at most `limit` records are read.
   */
  async history(folder: string, limit = 500): Promise<LiveRun[]> {
    const found: LiveRun[] = [];
    for (const rec of await readRunRecords(folder, limit)) {
      const key = RunKeys.of(folder, rec.commit, rec.role, rec.runId);
      const id = RunKeys.format(key);
      if (this.runs.has(id)) {
        found.push(this.runs.get(id)!);
        continue;
      }
      const live: LiveRun = {
        key,
        host: { label: rec.host.label, docker: rec.host.docker, gpus: rec.host.gpus },
        folder,
        record: rec,
        startedMs: ms(rec.startedAt) ?? ms(rec.createdAt) ?? 0,
        endedMs: ms(rec.endedAt),
        fromDisk: true,
        ctl: null,
      };
      this.runs.set(id, live);
      found.push(live);
    }
    if (found.length) this.emit({ kind: 'state', run: found[0] });
    return found;
  }

  private queue(h: HostConfig): HostQueue {
    const k = `${hostKind(h)}|${h.label}|${h.docker}`;
    let q = this.queues.get(k);
    // A swarm's count is twice its GPUs (runSlots): the swarm, not this queue, holds GPUs.
    if (!q) this.queues.set(k, (q = new HostQueue(h.gpus, runSlots(h))));
    return q;
  }

  private emit(e: RunsEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  private events(host: HostConfig, folder: string, ctl: AbortController): RunEvents {
    const upd = (r: RunRecord) => {
      const key = RunKeys.of(folder, r.commit, r.role, r.runId);
      const id = RunKeys.format(key);
      const live = this.runs.get(id) ?? { key, host, folder, record: r, startedMs: Date.now(), endedMs: null, fromDisk: false, ctl };
      live.record = r;
      live.fromDisk = false;
      live.ctl = ctl;
      if (FINAL_STATES.includes(r.status) && live.endedMs === null) live.endedMs = Date.now();
      this.runs.set(id, live);
      return live;
    };
    return {
      state: r => this.emit({ kind: 'state', run: upd(r) }),
      phase: (r, phase) => this.emit({ kind: 'phase', run: upd(r), phase }),
      note: (r, line) => this.emit({ kind: 'note', run: upd(r), line }),
    };
  }

  /** Cancels every run this process drives (window closing, CLI interrupted). */
  cancelAll(): void {
    for (const r of this.active()) r.ctl?.abort();
  }
}

/** run.json files under `<folder>/.bench-triage/runs/<commit8>/<role>/<runId>/`, newest first; unreadable ones are passed over. */
export async function readRunRecords(folder: string, limit = 500): Promise<RunRecord[]> {
  const base = path.join(folder, '.bench-triage', 'runs');
  const dirs: string[] = [];
  const list = async (d: string) =>
    (await fs.readdir(d, { withFileTypes: true }).catch(() => [])).filter(e => e.isDirectory() && !e.isSymbolicLink()).map(e => path.join(d, e.name));
  for (const c of await list(base)) for (const role of await list(c)) dirs.push(...(await list(role)));
  // Run ids start with their UTC time: newest first without reading anything.
  dirs.sort((a, b) => (path.basename(a) < path.basename(b) ? 1 : -1));
  const out: RunRecord[] = [];
  for (const d of dirs.slice(0, limit)) {
    // Damaged or planted records are left out of the list (a finding of their own when opened).
    const read = await readRunRecord(d);
    if (read.ok) out.push(read.record);
  }
  return out;
}
