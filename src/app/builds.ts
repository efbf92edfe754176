import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ownerAlive } from '../platform/processAlive';
import type { Commit, Role } from '../core/model';
import { Builder } from '../runner/build';
import { BuildPlanError, planBuild, type BuildPlan, type BuildSettings } from '../core/run/buildPlan';
import { newBuildId } from '../runner/buildRecord';
import { FINAL_BUILD_STATES, type BuildRecord } from '../core/run/records';
import { readBuildRecord } from '../runner/recordRead';
import { DockerRuntime } from '../runner/dockerRuntime';
import { HostQueue } from '../runner/hostQueue';
import { hostKind, type HostConfig } from '../core/run/hosts';
import type { ImageRuntime } from '../runner/runtime';

export type ImageRuntimeFactory = (host: HostConfig) => ImageRuntime;
/** A swarm manager builds on itself like any engine: the image side is plain Docker for every kind. */
export const imageRuntimeFor: ImageRuntimeFactory = host => new DockerRuntime(host);

/** What to build: a commit of a results folder and the role whose image it is. */
export interface BuildTarget {
  folder: string;
  commit: Commit;
  role: Role;
}

export interface BuildOptions {
  host: HostConfig;
  /** The local vLLM checkout the source comes from. */
  checkout: string | null;
  settings?: BuildSettings;
  rebuild?: boolean;
  /** The build's id when fixed in advance (a campaign's, so a resumed campaign finds its build). */
  buildId?: string;
}

/** A build this process knows: driven here, or read back from build.json. */
export interface LiveBuild {
  folder: string;
  dir: string;
  host: HostConfig;
  record: BuildRecord;
  fromDisk: boolean;
  ctl: AbortController | null;
}

const keyOf = (folder: string, buildId: string) => `${folder}|${buildId}`;

/**
 * Plans, queues, starts and cancels image builds, and reads their history: the one build path of
 * the CLI (`build`) and the extension (Build Image on H100…). Builds queue per host, one at a
 * time by default (a compile takes every core), apart from the hosts' run queues.
 */
export class Builds {
  private readonly builds = new Map<string, LiveBuild>();
  private readonly queues = new Map<string, HostQueue>();
  private readonly listeners = new Set<(b: LiveBuild) => void>();

  constructor(
    private readonly runtimes: ImageRuntimeFactory = imageRuntimeFor,
    private readonly perHost = 1,
  ) {}

  onEvent(fn: (b: LiveBuild) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  list(): LiveBuild[] {
    return [...this.builds.values()].sort((a, b) => (a.record.buildId < b.record.buildId ? 1 : -1));
  }
  active(): LiveBuild[] {
    return this.list().filter(b => !FINAL_BUILD_STATES.includes(b.record.status) && !b.fromDisk);
  }
  get(folder: string, buildId: string): LiveBuild | undefined {
    return this.builds.get(keyOf(folder, buildId));
  }

  /** The build, or a BuildPlanError saying what to change. Nothing touches a host. */
  plan(t: BuildTarget, o: BuildOptions): BuildPlan {
    if (!o.checkout) throw new BuildPlanError('a build needs a local vLLM checkout for its source: set benchTriage.vllmCheckout (or pass --checkout DIR)');
    return planBuild(t.commit, t.role, { host: o.host, buildId: o.buildId ?? newBuildId(), settings: o.settings });
  }

  /** Plans and runs one build; resolves with its final record. */
  async start(t: BuildTarget, o: BuildOptions, signal?: AbortSignal, onChunk?: (b: Buffer) => void): Promise<BuildRecord> {
    const plan = this.plan(t, o);
    const same = this.active().find(b => b.record.tag === plan.tag && b.host.label === o.host.label);
    if (same) throw new BuildPlanError(`${plan.tag} is being built on ${o.host.label} already (build ${same.record.buildId})`);
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const live: LiveBuild = {
      folder: t.folder,
      dir: path.join(t.folder, plan.dir),
      host: o.host,
      record: null as unknown as BuildRecord,
      fromDisk: false,
      ctl,
    };
    const builder = new Builder(this.runtimes(o.host), this.queue(o.host), {
      state: r => {
        live.record = r;
        this.builds.set(keyOf(t.folder, r.buildId), live);
        this.emit(live);
      },
    });
    try {
      return await builder.build({ plan, folder: t.folder, checkout: o.checkout!, rebuild: o.rebuild, signal: ctl.signal, onChunk });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  cancel(folder: string, buildId: string): boolean {
    const b = this.builds.get(keyOf(folder, buildId));
    if (!b?.ctl || FINAL_BUILD_STATES.includes(b.record.status)) return false;
    b.ctl.abort();
    return true;
  }

  cancelAll(): void {
    for (const b of this.active()) b.ctl?.abort();
  }

  /** The folder's builds as their build.json files say, newest first, added to the list unless known. */
  async history(folder: string, limit = 200): Promise<LiveBuild[]> {
    const out: LiveBuild[] = [];
    for (const { dir, record } of await readBuildRecords(folder, limit)) {
      const k = keyOf(folder, record.buildId);
      const known = this.builds.get(k);
      if (known) {
        out.push(known);
        continue;
      }
      const live: LiveBuild = {
        folder,
        dir,
        host: { label: record.host.label, docker: record.host.docker, gpus: record.host.gpus, kind: record.host.kind },
        record: orphaned(record) ? { ...record, status: 'interrupted', error: `the process that drove it (${record.owner}) is gone` } : record,
        fromDisk: true,
        ctl: null,
      };
      this.builds.set(k, live);
      out.push(live);
    }
    if (out.length) this.emit(out[0]);
    return out;
  }

  private queue(h: HostConfig): HostQueue {
    const k = `${hostKind(h)}|${h.label}|${h.docker}`;
    let q = this.queues.get(k);
    if (!q) this.queues.set(k, (q = new HostQueue(0, this.perHost)));
    return q;
  }

  private emit(b: LiveBuild): void {
    for (const l of this.listeners)
      try {
        l(b);
      } catch {
        /* a listener's failure is its own */
      }
  }
}

/** A build nobody drives: its owner was a process of this machine that is gone (the engine stopped the build with it). */
function orphaned(r: BuildRecord): boolean {
  return !FINAL_BUILD_STATES.includes(r.status) && !ownerAlive(r.owner);
}

/** build.json files under `<folder>/.bench-triage/builds/<commit12>/<buildId>/`, newest first; unreadable ones passed over. */
export async function readBuildRecords(folder: string, limit = 200): Promise<Array<{ dir: string; record: BuildRecord }>> {
  const base = path.join(folder, '.bench-triage', 'builds');
  const list = async (d: string) =>
    (await fs.readdir(d, { withFileTypes: true }).catch(() => [])).filter(e => e.isDirectory() && !e.isSymbolicLink()).map(e => path.join(d, e.name));
  const dirs: string[] = [];
  for (const c of await list(base)) dirs.push(...(await list(c)));
  dirs.sort((a, b) => (path.basename(a) < path.basename(b) ? 1 : -1));
  const out: Array<{ dir: string; record: BuildRecord }> = [];
  for (const d of dirs.slice(0, limit)) {
    const read = await readBuildRecord(d);
    if (read.ok) out.push({ dir: d, record: read.record });
  }
  return out;
}
