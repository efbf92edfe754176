import { appendFileSync, mkdirSync, promises as fs, statfsSync } from 'node:fs';
import * as path from 'node:path';
import { PrintedMetricsParser, samplesFromResultJson } from '../core/metrics';
import { normalisedMetrics } from '../core/ingest';
import { benchmarksFromCheckout, C, fileFromCheckout, hasCommit, helperFile, tarOf } from './containerFiles';
import { RunnerError } from './errors';
import type { HostQueue } from './hostQueue';
import { LogSink } from './logSink';
import { RunMasks, secretValues } from './secretMasks';
import { ownerAlive, ownerHere } from '../platform/processAlive';
import { readRunRecord } from './recordRead';
import type { RunPlan } from '../core/run/plan';
import { newRunId, runDir, saveRecord, saveResult } from './runRecord';
import { FINAL_STATES, RECORD_SCHEMA, type PhaseRecord, type RunRecord, type RunState } from '../core/run/records';
import { WITHDRAWN_STATE, type ContainerRuntime } from './runtime';
import { gpuRefusal, hostKind } from '../core/run/hosts';

export const LABEL = {
  runId: 'bench-triage.run-id',
  commit: 'bench-triage.commit',
  role: 'bench-triage.role',
  dir: 'bench-triage.run-dir',
  /** The GPU ids a run's container uses (plain hosts): other processes wait while they are taken. */
  gpus: 'bench-triage.gpus',
} as const;

/** How often a run waiting for GPUs another process's run holds looks again. */
const GPU_WAIT_MS = 3000;
/** How long a server that exited before it was ready may take to hand over the rest of its logs. */
const DRAIN_MS = 120_000;

/** GPU ids of the given list that running bench-triage containers on the host hold (their label). */
export function gpusTaken(wanted: readonly string[], containers: ReadonlyArray<{ state: string; labels: Record<string, string> }>): string[] {
  const held = new Set(containers.filter(c => c.state === 'running').flatMap(c => (c.labels[LABEL.gpus] ?? '').split(',').filter(Boolean)));
  return wanted.filter(id => held.has(id));
}

export interface RunEvents {
  state?(r: RunRecord): void;
  phase?(r: RunRecord, phase: PhaseRecord): void;
  note?(r: RunRecord, line: string): void;
}

export interface RunRequest {
  plan: RunPlan;
  /** The results folder; the run goes to `<folder>/<plan.resultDir>`. */
  folder: string;
  /** Agent patch text (agent role). */
  agentPatch?: string | null;
  /** Local vLLM checkout for benchmark scripts (and recipe files) from the commit under test. */
  checkout?: string | null;
  /** Extra environment (not secret: it shows in `docker inspect`). */
  env?: Record<string, string>;
  /**
   * Secret environment, by name: never in the container's configuration (so never in `docker
   * inspect`), but in files only root can read, which the helper hands to each phase's
   * environment. Their names go in run.json; their values are masked in every stored byte.
   */
  secretEnv?: Record<string, string>;
  /** Further values to mask (e.g. a token that also reaches the run another way). */
  secrets?: string[];
  model?: string | null;
  agent?: string | null;
  benchmarkTimeoutS?: number;
  /** Free space the log directory needs before a run starts (default 256 MB). */
  minFreeBytes?: number;
  signal?: AbortSignal;
}

const now = () => new Date().toISOString();
const OWNER = ownerHere();
/**
 * Run folders this process is re-attaching to. Two passes of one process (a window's own re-attach
 * after a reload and a Resume Campaign's) both read the dead owner before either writes its own:
 * without this, both would drive one container and the second would find it gone.
 */
const ATTACHING = new Set<string>();

const MIN_FREE_BYTES = 256 * 1024 ** 2;

/** The helper's own one-line reason for refusing a patch (the last 64 KB of its stderr), if it gave one. */
async function patchRefusal(file: string): Promise<string | null> {
  try {
    const fh = await fs.open(file);
    try {
      const { size } = await fh.stat();
      const buf = Buffer.alloc(Math.min(size, 65536));
      await fh.read(buf, 0, buf.length, size - buf.length);
      const m = /AGENT_PATCH_FAILED: (\S+ cannot be applied[^\n]*)/.exec(buf.toString('utf8'));
      return m ? m[1] : null;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

/** Thrown inside a run to end it with a state (not a crash of the runner). */
class RunEnd extends Error {
  constructor(
    readonly state: RunState,
    message: string,
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }
}

/** States of a container (`created`) or swarm task that has not run yet: nothing of the run happened in it. */
const NOT_STARTED = new Set(['created', 'new', 'pending', 'assigned', 'accepted', 'preparing', 'ready', 'starting']);

/**
 * Executes plans on one host: preflight → container → setup (recipes) → agent patch → server +
 * readiness → benchmark → metrics → result.json. Each phase runs detached in the container with its
 * output spooled there and streamed here byte-exact; run.json records every step, so `resume`
 * (another runner, after a reload) continues a run from where it is.
 */
export class Runner {
  constructor(
    readonly runtime: ContainerRuntime,
    readonly queue: HostQueue,
    private readonly events: RunEvents = {},
  ) {}

  /** The secret values of each run this runner drives: masked in everything it stores. */
  private readonly masks = new RunMasks();

  async run(req: RunRequest): Promise<RunRecord> {
    const dir = runDir(req.folder, req.plan);
    const r = this.newRecord(req);
    this.masks.set(r, secretValues(req));
    mkdirSync(path.join(dir, 'logs'), { recursive: true });
    await this.save(dir, r);
    let gpuIds: string[] | null = null;
    try {
      const tp = req.plan.tensorParallel;
      this.note(dir, r, `queued on ${this.runtime.where} (${this.queue.queued} ahead)`);
      gpuIds = await this.queue.acquire(tp, req.signal).catch(() => {
        throw new RunEnd('cancelled', 'cancelled while queued');
      });
      r.gpuIds = gpuIds;
      await this.setState(dir, r, 'preflight');
      await this.preflight(dir, r, req);
      await this.waitForFreeGpus(dir, r, req);
      await this.createContainer(dir, r, req);
      await this.setState(dir, r, 'running');
      await this.phases(dir, r, req);
    } catch (e) {
      await this.ended(dir, r, e, req);
    }
    try {
      return await this.finish(dir, r, req);
    } finally {
      if (gpuIds) this.queue.release(gpuIds);
    }
  }

  /**
   * Re-attaches to the unfinished runs of `folder` whose containers are on this host. Secret
   * values come from `secretValues` (SecretStorage, the environment) or, failing that, from the
   * container's own secret files: masking never depends on the path a run took.
   */
  async resume(
    folder: string,
    signal?: AbortSignal,
    secretValues: (names: string[]) => Record<string, string> | Promise<Record<string, string>> = () => ({}),
  ): Promise<RunRecord[]> {
    const root = path.resolve(folder);
    const mine = (await this.runtime.list(LABEL.runId)).filter(c => {
      const dir = c.labels[LABEL.dir];
      // Taken before any await: another pass of this process skips what this one drives.
      if (!dir || !path.resolve(dir).startsWith(root + path.sep) || ATTACHING.has(path.resolve(dir))) return false;
      ATTACHING.add(path.resolve(dir));
      return true;
    });
    // All at once: each run's log is followed live, not after the runs before it have ended.
    const done = await Promise.all(
      mine.map(async c => {
        const dir = c.labels[LABEL.dir]!;
        try {
          return await this.reattachOne(c, dir, folder, signal, secretValues);
        } finally {
          ATTACHING.delete(path.resolve(dir));
        }
      }),
    );
    return done.filter((r): r is RunRecord => r !== null);
  }

  /** One container of `resume`: its run completed by this runner, or null if it is not ours to drive. */
  private async reattachOne(
    c: { id: string; state: string },
    dir: string,
    folder: string,
    signal: AbortSignal | undefined,
    secretValues: (names: string[]) => Record<string, string> | Promise<Record<string, string>>,
  ): Promise<RunRecord | null> {
    const read = await readRunRecord(dir);
    if (!read.ok) {
      await this.runtime.remove(c.id);
      return null;
    }
    const r = read.record;
    if (FINAL_STATES.includes(r.status)) {
      await this.runtime.remove(c.id);
      return null;
    }
    if (ownerAlive(r.owner)) return null; // its runner is alive (this window or another process)
    const names = r.secretNames ?? [];
    const given = names.length ? await secretValues(names) : {};
    const secretEnv: Record<string, string> = {};
    for (const n of names) secretEnv[n] = given[n] ?? (c.state === 'running' ? await this.secretFromContainer(c.id, n) : null) ?? '';
    const req: RunRequest = { plan: r.plan, folder, signal, model: null, agent: null, secretEnv };
    this.masks.set(
      r,
      Object.values(secretEnv).filter(v => v.length >= 4),
    );
    r.owner = OWNER;
    const missing = names.filter(n => !secretEnv[n]);
    this.note(dir, r, `re-attached by a new runner (container ${c.id.slice(0, 12)}, ${c.state})`);
    try {
      // A swarm task still waiting for its GPUs (or a container never started): nothing ran, so
      // it goes as an attempt that a campaign runs again, not as a stopped container.
      if (NOT_STARTED.has(c.state))
        throw new RunEnd(
          'interrupted',
          `it was still waiting to start (state ${c.state}) when the process driving it ended: nothing ran; removed so that it can run again`,
        );
      if (c.state === WITHDRAWN_STATE)
        throw new RunEnd(
          'interrupted',
          'it had withdrawn from its GPU slot to move to one freed first, before taking the GPUs, when the process moving it ended: nothing ran; removed so that it can run again',
        );
      if (c.state === 'running' && this.runtime.filesIn && !(await this.runtime.filesIn(c.id).catch(() => true)))
        throw new RunEnd(
          'interrupted',
          'it was still waiting to start (its files were being put into its container, or it waited for its GPUs) when the process driving it ended: nothing ran; removed so that it can run again',
        );
      if (c.state !== 'running') throw new RunEnd('interrupted', `the container stopped while no runner was attached (state ${c.state}); partial logs kept`);
      // Without a secret's value its mask is unknown: stop rather than store it in clear.
      if (missing.length)
        throw new RunEnd(
          'interrupted',
          `the value of secret ${missing.join(', ')} is not known to this runner and not in the container, so the rest of the log could not be masked; the run was stopped (logs so far kept)`,
        );
      await this.phases(dir, r, req);
    } catch (e) {
      await this.ended(dir, r, e, req);
    }
    return this.finish(dir, r, req);
  }

  /** A secret the run's container holds (written there at creation), for masking after a re-attach. */
  private async secretFromContainer(id: string, name: string): Promise<string | null> {
    try {
      const res = await this.runtime.exec(id, ['python3', C.helper, 'secret', name], { timeoutMs: 15_000 });
      return res.exitCode === 0 ? res.stdout.toString('utf8') : null;
    } catch {
      return null;
    }
  }

  private newRecord(req: RunRequest): RunRecord {
    const p = req.plan;
    return {
      schema: RECORD_SCHEMA,
      runId: path.basename(p.resultDir) || newRunId(),
      commit: p.commit,
      role: p.role,
      host: { kind: hostKind(p.host), label: p.host.label, docker: p.host.docker, gpus: p.host.gpus },
      image: p.image,
      plan: p,
      recipes: p.recipes.map(x => x.id),
      status: 'queued',
      error: null,
      exitCode: null,
      containerId: null,
      gpuIds: [],
      createdAt: now(),
      startedAt: null,
      endedAt: null,
      durationS: null,
      phases: [],
      readinessS: null,
      benchmarkScripts: null,
      metrics: {},
      metricsSource: null,
      envNames: Object.keys(req.env ?? {}),
      secretNames: Object.keys(req.secretEnv ?? {}).sort(),
      runnerLog: 'logs/runner.log',
      owner: OWNER,
    };
  }

  private async preflight(dir: string, r: RunRecord, req: RunRequest): Promise<void> {
    const host = req.plan.host;
    await this.runtime.ping(req.signal);
    const facts = await this.runtime.facts();
    this.note(dir, r, `Docker ${facts.serverVersion} on ${this.runtime.where}: ${facts.ncpu} CPUs, runtimes ${facts.runtimes.join(', ')}`);
    // On a swarm the node's runtime maps the reserved NVIDIA-GPU generic resources (the
    // manager's own runtimes say nothing about the node the task lands on).
    if (hostKind(host) === 'swarm' && host.gpus > 0)
      this.note(dir, r, `swarm: the run reserves ${r.gpuIds.length || 1} NVIDIA-GPU generic resource(s); the swarm holds it until a node has them free`);
    else {
      const refusal = gpuRefusal(host, facts.runtimes, this.runtime.where);
      if (refusal) throw new RunEnd('refused', refusal);
    }
    if (!(await this.runtime.hasImage(r.image))) {
      this.note(dir, r, `pulling ${r.image} …`);
      try {
        await this.runtime.pull(r.image, req.signal);
      } catch (e) {
        throw new RunEnd('refused', `image ${r.image} is not on ${this.runtime.where} and could not be pulled: ${(e as Error).message}`);
      }
    }
    const st = statfsSync(dir);
    const free = Number(st.bavail) * Number(st.bsize);
    const need = req.minFreeBytes ?? MIN_FREE_BYTES;
    if (free < need)
      throw new RunEnd(
        'refused',
        `log directory ${dir} has only ${(free / 1024 ** 2).toFixed(0)} MB free (need ${(need / 1024 ** 2).toFixed(0)} MB): logs are never truncated, so free some space first`,
      );
  }

  private async createContainer(dir: string, r: RunRecord, req: RunRequest): Promise<void> {
    const p = req.plan;
    const files: Array<{ name: string; body: string | Buffer; mode?: number }> = [helperFile()];
    for (const [name, value] of Object.entries(req.secretEnv ?? {})) files.push({ name: `${C.secrets}/${name}`, body: value, mode: 0o400 });
    if (p.role === 'agent') {
      if (!req.agentPatch) throw new RunEnd('refused', `no agent patch text for ${p.commit.slice(0, 12)}`);
      files.push({ name: C.patch, body: req.agentPatch, mode: 0o644 });
    }
    const benchCommit = p.role === 'human' ? p.commit : p.parent!;
    for (const step of p.recipes.flatMap(x => x.steps)) {
      if (step.argv[0] !== 'bench-triage-copy') continue;
      if (!req.checkout) throw new RunEnd('refused', `recipe needs ${step.argv[1]} from a vLLM checkout: configure one`);
      files.push({ name: `${C.files}/${path.basename(step.argv[1])}`, body: await fileFromCheckout(req.checkout, benchCommit, step.argv[1]), mode: 0o644 });
    }
    // A checkout that lacks the commit (not fetched, or a fork's commit) falls back to the image's
    // scripts, and says so in the run's record and log: the script version is part of comparability.
    const inCheckout = req.checkout && !p.benchmark.script.startsWith('vllm bench') ? await hasCommit(req.checkout, benchCommit) : false;
    if (req.checkout && !inCheckout && !p.benchmark.script.startsWith('vllm bench'))
      this.note(dir, r, `commit ${benchCommit.slice(0, 12)} is not in the vLLM checkout ${req.checkout}: the benchmark scripts come from the image`);
    const scripts = inCheckout ? await benchmarksFromCheckout(req.checkout!, benchCommit, req.signal) : null;
    r.benchmarkScripts = scripts
      ? `git archive ${benchCommit} benchmarks (checkout ${req.checkout})`
      : p.benchmark.script.startsWith('vllm bench')
        ? 'the vLLM CLI in the image'
        : req.checkout
          ? `the image (${benchCommit.slice(0, 12)} is not in the checkout ${req.checkout})`
          : 'the image (no vLLM checkout configured)';
    const id = await this.runtime.create({
      image: r.image,
      name: `bench-triage-${p.commit.slice(0, 8)}-${p.role}-${r.runId}`,
      labels: { [LABEL.runId]: r.runId, [LABEL.commit]: p.commit, [LABEL.role]: p.role, [LABEL.dir]: path.resolve(dir), [LABEL.gpus]: r.gpuIds.join(',') },
      env: { ...p.env, ...(req.env ?? {}) },
      cmd: ['python3', C.helper, 'idle'],
      gpuIds: r.gpuIds,
    });
    r.containerId = id;
    await this.save(dir, r);
    await this.runtime.putArchive(id, '/', await tarOf(files));
    if (scripts) await this.runtime.putArchive(id, C.src, scripts);
    // The first phase, when nothing needs asking of the container before it: a cluster's GPU slot
    // launches it the moment the run takes its GPUs, with no round trip from the death before.
    const first = this.phaseList(p, r)[0];
    const firstRec = first && !(first.kind === 'benchmark' && p.benchmark.detailed === 'check-at-launch') ? this.phaseRecord(first) : null;
    // The engine's own reason (no bridge, no GPU, a bad mount …) is what the user needs to read.
    try {
      await this.runtime.start(
        id,
        req.signal,
        firstRec ? { argv: this.launchArgv(firstRec, 'launch-claimed'), marker: `${C.logs}/${firstRec.name}.launched` } : undefined,
      );
    } catch (e) {
      if (req.signal?.aborted) throw e;
      const why = (e as Error).message.replace(/^.*?\): /, '');
      // A swarm node lost while the run waited for it (drained, down, removed): nothing ran, and a campaign runs it again.
      if (e instanceof RunnerError && e.kind === 'unreachable') throw new RunEnd('interrupted', `${why}; nothing ran`);
      throw new RunEnd('failed', `${this.runtime.where} could not start the container: ${why}`);
    }
    r.startedAt = now();
    const heldAt = this.runtime.gpusHeldAt?.(id) ?? null;
    if (heldAt) r.slotGpus = { heldAt, freedAt: null };
    const launched = firstRec && this.runtime.launchedFirst?.(id) ? firstRec : null;
    if (launched) {
      launched.launchedAt = r.startedAt;
      r.phases.push(launched);
      await this.save(dir, r);
    }
    r.node = (await this.runtime.nodeOf?.(id)) ?? null;
    r.imageRef = (await this.runtime.imageOf?.(id)) ?? null;
    const pulled = (await this.runtime.pullOf?.(id)) ?? null;
    r.pullS = pulled ? Math.round(pulled.seconds * 10) / 10 : null;
    if (pulled) this.note(dir, r, `node ${pulled.node} pulled ${r.imageRef ?? r.image} in ${r.pullS} s before the run started`);
    const wait = (await this.runtime.waitOf?.(id)) ?? null;
    const placed = wait
      ? `, placed after ${wait.seconds.toFixed(1)} s in the cluster's queue (${wait.seenBy === 'event' ? 'seen as its node made its container' : 'seen by asking the manager'})`
      : '';
    this.note(
      dir,
      r,
      `container ${id.slice(0, 12)} started from ${r.image}${r.gpuIds.length ? ` on GPUs ${r.gpuIds.join(',')}` : ''}${r.node ? ` on node ${r.node}` : ''}${placed}`,
    );
    if (wait?.moved)
      this.note(
        dir,
        r,
        `moved to a GPU slot on node ${wait.moved.to} that freed first, after waiting ${wait.moved.waitedS.toFixed(1)} s behind a run under way on node ${wait.moved.from} (its container there withdrew before taking the GPUs)`,
      );
    if (launched) this.note(dir, r, `${launched.name} launched by the container as it took its GPUs`);
  }

  /**
   * Best effort on a plain Docker host: another window or person may run bench-triage containers on
   * the same GPUs (their ids are in a label). Waits while any of this run's GPUs is taken. Two
   * processes can still race between the look and the start; a swarm host guarantees sharing.
   */
  private async waitForFreeGpus(dir: string, r: RunRecord, req: RunRequest): Promise<void> {
    if (!r.gpuIds.length || hostKind(req.plan.host) !== 'docker') return;
    let said = false;
    for (;;) {
      const taken = gpusTaken(r.gpuIds, await this.runtime.list(LABEL.runId));
      if (!taken.length) return;
      if (!said) this.note(dir, r, `GPU ${taken.join(', ')} taken by another bench-triage run on ${this.runtime.where}: waiting until it is free`);
      said = true;
      if (req.signal?.aborted) throw new RunEnd('cancelled', 'cancelled while waiting for GPUs');
      await new Promise(res => setTimeout(res, GPU_WAIT_MS));
    }
  }

  /** The phase list of a plan, in order (setup steps, patch, server, benchmark). */
  private phaseList(
    p: RunPlan,
    r: RunRecord,
  ): Array<Omit<PhaseRecord, 'launchedAt' | 'endedAt' | 'exitCode' | 'stdout' | 'stderr'> & { kind: 'step' | 'patch' | 'server' | 'benchmark' }> {
    const list: ReturnType<Runner['phaseList']> = [];
    // Without a checkout the scripts come from the image (the helper copies them into place).
    if (!(r.benchmarkScripts?.startsWith('git archive') ?? false))
      list.push({ name: 'benchmarks', kind: 'step', argv: ['python3', C.helper, 'provide-benchmarks', C.benchmarks], cwd: '/' });
    p.recipes.forEach(rec =>
      rec.steps.forEach((s, i) => {
        const argv =
          s.argv[0] === 'bench-triage-copy'
            ? ['python3', C.helper, 'copy-into-vllm', `${C.files}/${path.basename(s.argv[1])}`, s.argv[1].replace(/^vllm\//, '')]
            : s.argv;
        list.push({ name: `setup-${rec.id}${rec.steps.length > 1 ? `-${i + 1}` : ''}`, kind: 'step', argv, cwd: '/' });
      }),
    );
    if (p.role === 'agent') list.push({ name: 'patch', kind: 'patch', argv: ['python3', C.helper, 'apply-patch', C.patch], cwd: '/' });
    if (p.server) list.push({ name: 'server', kind: 'server', argv: p.server.argv, cwd: '/' });
    list.push({ name: 'benchmark', kind: 'benchmark', argv: p.benchmark.argv, cwd: C.benchmarks });
    return list;
  }

  private phaseRecord(spec: { name: string; argv: string[]; cwd: string }): PhaseRecord {
    return {
      name: spec.name,
      argv: spec.argv,
      cwd: spec.cwd,
      launchedAt: null,
      endedAt: null,
      exitCode: null,
      stdout: `logs/${spec.name}.stdout.log`,
      stderr: `logs/${spec.name}.stderr.log`,
    };
  }

  /**
   * The helper's launch of a phase (its output spooled): once only per container, by its marker
   * `logs/<phase>.launched`, which `launch-claimed` finds already made by whoever launches it.
   */
  private launchArgv(ph: PhaseRecord, how: 'launch' | 'launch-claimed' = 'launch'): string[] {
    return ['python3', C.helper, how, ph.name, ph.cwd, '--', ...ph.argv];
  }

  private async phases(dir: string, r: RunRecord, req: RunRequest): Promise<void> {
    // The server's log stream lives until the run ends; it is closed explicitly (an open hijacked
    // connection would otherwise outlive the container).
    const serverCtl = new AbortController();
    const serverReq = { ...req, signal: req.signal ? AbortSignal.any([req.signal, serverCtl.signal]) : serverCtl.signal };
    try {
      await this.runPhases(dir, r, req, serverReq);
    } finally {
      serverCtl.abort();
    }
  }

  private async runPhases(dir: string, r: RunRecord, req: RunRequest, serverReq: RunRequest): Promise<void> {
    const id = r.containerId!;
    for (const spec of this.phaseList(req.plan, r)) {
      let ph = r.phases.find(x => x.name === spec.name);
      if (ph?.exitCode != null && spec.kind !== 'server') continue;
      if (!ph) {
        ph = this.phaseRecord(spec);
        r.phases.push(ph);
      }
      if (!ph.launchedAt) {
        if (spec.kind === 'benchmark' && req.plan.benchmark.detailed === 'check-at-launch') ph.argv = await this.withDetailed(dir, r, ph.argv, req);
        await this.runtime.exec(id, this.launchArgv(ph), { detach: true, signal: req.signal });
        ph.launchedAt = now();
        await this.save(dir, r);
      }
      this.events.phase?.(r, ph);
      this.note(dir, r, `phase ${ph.name}: ${ph.argv.join(' ')}`);
      if (spec.kind === 'server') {
        const following = this.follow(dir, r, ph, serverReq).catch(() => undefined);
        await this.awaitReady(dir, r, ph, req, following);
        continue;
      }
      const timeoutMs = spec.kind === 'benchmark' ? (req.benchmarkTimeoutS ?? 3600) * 1000 : 3 * 3600_000;
      await this.follow(dir, r, ph, req, timeoutMs);
      await this.phaseEnded(dir, r, ph);
      if (ph.exitCode === 0) continue;
      if (spec.kind === 'patch') {
        // The helper names the file it refused (csrc/ on an installed package …), else git's rejected hunks are in the log.
        const why = await patchRefusal(path.join(dir, ph.stderr));
        throw new RunEnd(
          'agent-patch-failed',
          why
            ? `the agent patch does not wholly apply to ${r.image}: ${why}`
            : `the agent patch does not apply to ${r.image} (git apply --check; rejected hunks in ${ph.stderr} and ${ph.stdout})`,
          ph.exitCode,
        );
      }
      if (spec.kind === 'benchmark') throw new RunEnd('failed', `the benchmark exited with code ${ph.exitCode} (see ${ph.stderr})`, ph.exitCode);
      throw new RunEnd('failed', `setup step ${ph.name} failed with exit code ${ph.exitCode} (see ${ph.stderr})`, ph.exitCode);
    }
    await this.collectMetrics(dir, r, req);
  }

  /**
   * A script taken from the image: `--save-detailed` is added when the script defines it (2025
   * scripts do; 2024 scripts keep per-request values anyway and would refuse the flag).
   */
  private async withDetailed(dir: string, r: RunRecord, argv: string[], req: RunRequest): Promise<string[]> {
    const script = argv.find(a => a.endsWith('.py'));
    if (!script || argv.includes('--save-detailed')) return argv;
    const probe = await this.runtime.exec(r.containerId!, ['python3', C.helper, 'takes-flag', script, '--save-detailed'], {
      signal: req.signal,
      timeoutMs: 30_000,
    });
    this.note(
      dir,
      r,
      probe.exitCode === 0
        ? `${script} takes --save-detailed: added (per-request samples)`
        : `${script} has no --save-detailed: it keeps per-request values itself or not at all`,
    );
    return probe.exitCode === 0 ? [...argv, '--save-detailed'] : argv;
  }

  /** Streams a phase's spooled output into its log files from the bytes already here, until it ends. */
  private async follow(dir: string, r: RunRecord, ph: PhaseRecord, req: RunRequest, timeoutMs?: number): Promise<void> {
    const size = async (f: string) => (await fs.stat(path.join(dir, f)).catch(() => null))?.size ?? 0;
    const [o, e] = [await size(ph.stdout), await size(ph.stderr)];
    // A log that cannot be written (disk full) stops the stream at once rather than dropping output.
    const stop = new AbortController();
    const out = new LogSink(path.join(dir, ph.stdout), secretValues(req), true, () => stop.abort());
    const err = new LogSink(path.join(dir, ph.stderr), secretValues(req), true, () => stop.abort());
    const signal = req.signal ? AbortSignal.any([req.signal, stop.signal]) : stop.signal;
    let failed: { error: unknown } | null = null;
    try {
      await this.runtime.exec(r.containerId!, ['python3', C.helper, 'follow', ph.name, String(o), String(e)], { stdout: out, stderr: err, signal, timeoutMs });
    } catch (x) {
      failed = { error: x };
    }
    await Promise.all([out.close(), err.close()]);
    // A log that could not be written ends the run first: that is what stopped the stream.
    const full = out.failure ?? err.failure;
    if (full)
      throw new RunEnd(
        'failed',
        `cannot write the log ${full.code === 'ENOSPC' ? `— the log directory ${path.join(dir, 'logs')} is full (ENOSPC)` : `${(full as NodeJS.ErrnoException).path ?? ''}: ${full.message}`}; the run was stopped so that nothing is silently lost`,
      );
    if (failed) {
      const x = failed.error;
      if (x instanceof RunnerError && x.kind === 'timeout' && timeoutMs) throw new RunEnd('timeout', `${ph.name} did not finish within ${timeoutMs / 1000} s`);
      throw x;
    }
  }

  /** Reads the phase's exit code; a container that died instead is a failure with its exit code. */
  private async phaseEnded(dir: string, r: RunRecord, ph: PhaseRecord): Promise<void> {
    const st = await this.phaseStatus(r, ph.name);
    if (st?.exit == null) {
      // No exit code: the follow stream ended because the container stopped (killed, OOM, removed).
      let state = await this.runtime.inspect(r.containerId!);
      for (let i = 0; state?.running && i < 50; i++) {
        await new Promise(res => setTimeout(res, 100));
        state = await this.runtime.inspect(r.containerId!);
      }
      const code = state?.exitCode ?? null;
      throw new RunEnd(
        'failed',
        `the container ${state ? `stopped (exit code ${code}${code === 137 ? ', killed' : ''}${state.oomKilled ? ', out of memory' : ''})` : 'was removed'} during ${ph.name}; partial logs kept`,
        code,
      );
    }
    ph.exitCode = st.exit;
    ph.endedAt = now();
    this.events.phase?.(r, ph);
    this.note(dir, r, `phase ${ph.name} ended with exit code ${ph.exitCode}`);
    await this.save(dir, r);
  }

  /** The helper's view of a phase; null when the container cannot run it (stopped). */
  private async phaseStatus(r: RunRecord, name = 'benchmark'): Promise<{ exit: number | null } | null> {
    const res = await this.runtime.exec(r.containerId!, ['python3', C.helper, 'status', name]).catch(e => {
      if (e instanceof RunnerError && e.kind === 'docker') return null; // "container is not running"
      throw e;
    });
    try {
      return res && res.exitCode === 0 ? (JSON.parse(res.stdout.toString()) as { exit: number | null }) : null;
    } catch {
      return null;
    }
  }

  private async awaitReady(dir: string, r: RunRecord, ph: PhaseRecord, req: RunRequest, following: Promise<unknown>): Promise<void> {
    const ready = req.plan.server!.readiness;
    const t0 = Date.now();
    while (Date.now() - t0 < ready.timeoutS * 1000) {
      if (req.signal?.aborted) throw new RunEnd('cancelled', 'cancelled');
      const probe = await this.runtime.exec(r.containerId!, ['python3', C.helper, 'probe', ready.url], { signal: req.signal, timeoutMs: 15_000 });
      if (probe.exitCode === 0) {
        r.readinessS = (Date.now() - t0) / 1000;
        this.note(dir, r, `SERVER_READY_AFTER=${r.readinessS.toFixed(1)}s (${ready.url})`);
        await this.save(dir, r);
        return;
      }
      const st = await this.phaseStatus(r, ph.name);
      if (st === null) await this.phaseEnded(dir, r, ph); // the container stopped: throws with its exit code
      if (st?.exit != null) {
        ph.exitCode = st.exit;
        ph.endedAt = now();
        // Its last bytes (the traceback that says why) may still be on their way: the run ends once
        // they are in the log, not before the teardown removes the container under the stream.
        await Promise.race([following, new Promise(res => setTimeout(res, DRAIN_MS))]);
        throw new RunEnd('failed', `the vLLM server exited with code ${st.exit} before it was ready (see ${ph.stderr})`, st.exit);
      }
      await new Promise(res => setTimeout(res, 1000));
    }
    throw new RunEnd('failed', `SERVER_TIMEOUT: the vLLM server was not ready within ${ready.timeoutS} s (${ready.url}; see ${ph.stderr})`);
  }

  private async collectMetrics(dir: string, r: RunRecord, req: RunRequest): Promise<void> {
    if (req.plan.metrics === 'save-result-json') {
      const res = await this.runtime.exec(r.containerId!, ['python3', C.helper, 'result', C.results]);
      if (res.exitCode === 0) {
        try {
          const doc = JSON.parse(res.stdout.toString());
          const m = normalisedMetrics([doc]);
          if (Object.keys(m.metrics).length) {
            r.metrics = { ...m.counts, ...m.metrics };
            r.metricsSource = 'save-result-json';
            r.samples = samplesFromResultJson(doc);
            if (r.samples)
              this.note(
                dir,
                r,
                `per-request samples kept: ${Object.entries(r.samples)
                  .map(([k, v]) => `${k} ×${v.length}`)
                  .join(', ')}`,
              );
            return;
          }
        } catch {
          /* fall back to the printed block */
        }
      }
      this.note(dir, r, 'no --save-result JSON: reading the printed result block');
    }
    const parser = new PrintedMetricsParser();
    const bench = r.phases.find(p => p.name === 'benchmark')!;
    const fh = await fs.open(path.join(dir, bench.stdout));
    try {
      let carry = '';
      for await (const chunk of fh.createReadStream({ highWaterMark: 1 << 20 })) {
        const text = carry + (chunk as Buffer).toString('latin1');
        const cut = text.lastIndexOf('\n');
        parser.chunk(text.slice(0, cut + 1));
        carry = text.slice(cut + 1).slice(-4096);
      }
      parser.chunk(carry);
    } finally {
      await fh.close();
    }
    const m = parser.result();
    r.metrics = { ...m.counts, ...m.metrics };
    r.metricsSource = 'printed-block';
    if (!Object.keys(m.metrics).length) throw new RunEnd('failed', `No metrics in the benchmark output (${bench.stdout} has no result block)`);
  }

  private async ended(dir: string, r: RunRecord, e: unknown, req: RunRequest): Promise<void> {
    if (req.signal?.aborted && !(e instanceof RunEnd && e.state !== 'cancelled')) {
      r.status = 'cancelled';
      r.error = 'cancelled by the user; logs so far kept';
      return;
    }
    if (e instanceof RunEnd) {
      r.status = e.state;
      r.error = e.message;
      r.exitCode = e.exitCode;
      return;
    }
    if (e instanceof RunnerError && ['unreachable', 'timeout', 'docker'].includes(e.kind) && r.containerId) {
      // A swarm stopping the task of a drained or removed node leaves its engine answering and the
      // container stopped: the node was taken, the run did not fail.
      const taken = await this.runtime.nodeLost?.(r.containerId).catch(() => null);
      if (taken) {
        r.status = 'interrupted';
        r.error = `lost ${taken} during the run: ${e.message}; partial logs kept`;
        return;
      }
      const alive = await this.runtime.ping().then(
        () => true,
        () => false,
      );
      const state = alive && r.containerId ? await this.runtime.inspect(r.containerId).catch(() => null) : null;
      if (alive && state && !state.running) {
        r.status = 'failed';
        r.exitCode = state.exitCode;
        r.error = `the container stopped (exit code ${state.exitCode})${state.error ? `: ${state.error}` : ''}; partial logs kept`;
        return;
      }
      const lost = await this.runtime.lostWhy?.(r.containerId).catch(() => null);
      r.status = 'interrupted';
      r.error = `lost ${lost ?? 'the Docker daemon'} during the run: ${e.message}; partial logs kept`;
      return;
    }
    r.status = e instanceof RunnerError && e.kind === 'cancelled' ? 'cancelled' : 'failed';
    r.error = e instanceof Error ? e.message : String(e);
  }

  private async finish(dir: string, r: RunRecord, req: RunRequest): Promise<RunRecord> {
    if (r.status === 'running' || r.status === 'preflight' || r.status === 'queued') r.status = 'succeeded';
    r.endedAt = now();
    r.durationS = r.startedAt ? (Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000 : null;
    this.note(dir, r, `${r.status}${r.error ? `: ${r.error}` : ''}`);
    // A cluster's GPU slot: the run's GPUs go to the slot's next run now, not at its container's death.
    if (r.containerId && r.slotGpus && this.runtime.giveBack) {
      const freed = await this.runtime.giveBack(r.containerId).catch(() => null);
      if (freed) {
        r.slotGpus.freedAt = freed;
        this.note(dir, r, `GPUs given back to the slot at ${freed}: no process of the run was left, the container is removed after`);
      }
    }
    // The outcome is on disk before the container goes: a process killed while removing it (a
    // swarm service takes seconds) leaves a final record, and whoever resumes only cleans up.
    try {
      await saveResult(dir, r, req.model ?? null, req.agent ?? null, this.mask(r));
      await this.save(dir, r);
    } catch (e) {
      r.error = `${r.error ? `${r.error}; ` : ''}could not record the result: ${(e as Error).message}`;
    }
    if (r.containerId) await this.removeContainer(dir, r);
    this.events.state?.(r);
    return r;
  }

  /** Removes the run's container; after a daemon restart, retries until the daemon is back (≤ 30 s). */
  private async removeContainer(dir: string, r: RunRecord): Promise<void> {
    for (let i = 0; i < 30; i++) {
      try {
        await this.runtime.remove(r.containerId!);
        if ((await this.runtime.inspect(r.containerId!)) === null) return;
      } catch (e) {
        if (i === 29) this.note(dir, r, `could not remove container ${r.containerId!.slice(0, 12)}: ${(e as Error).message}`);
      }
      await new Promise(res => setTimeout(res, 1000));
    }
  }

  private async setState(dir: string, r: RunRecord, s: RunState): Promise<void> {
    r.status = s;
    await this.save(dir, r);
    this.events.state?.(r);
  }

  private async save(dir: string, r: RunRecord): Promise<void> {
    try {
      await saveRecord(dir, r, this.mask(r));
    } catch (e) {
      if (/ENOSPC/.test((e as Error).message))
        throw new RunEnd('failed', `cannot write run.json — the log directory ${dir} is full (ENOSPC); the previous run.json is intact`);
      throw e;
    }
  }

  private mask(r: RunRecord): (t: string) => string {
    return this.masks.of(r);
  }

  private note(dir: string, r: RunRecord, line: string): void {
    const masked = this.mask(r)(line);
    try {
      appendFileSync(path.join(dir, r.runnerLog), `${now()} ${masked}\n`);
    } catch {
      /* a full disk is reported by the phase that hits it */
    }
    this.events.note?.(r, masked);
  }
}
