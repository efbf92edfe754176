import { DockerRuntime } from './dockerRuntime';
import { RunnerError } from './errors';
import type { ContainerSpec, ContainerState, ExecOptions, ExecOutcome, LabelledContainer } from './runtime';

/** The generic-resource kind a swarm node advertises its GPUs under (daemon.json `node-generic-resources`). */
export const GPU_RESOURCE = 'NVIDIA-GPU';
/** Written after the run's files are in place; the task's command waits for it before it starts. */
const READY = '/.bench-triage-ready';
const POLL_MS = 300;

interface Task {
  ID: string;
  Status?: { State?: string; Err?: string; Message?: string; ContainerStatus?: { ContainerID?: string; ExitCode?: number } };
  DesiredState?: string;
}

/** A tar holding one empty file (the ready marker), built by hand: 512-byte header + end blocks. */
function markerTar(name: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.replace(/^\//, ''), 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write('00000000000\0', 124);
  h.write(
    Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0') + '\0',
    136,
  );
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return Buffer.concat([h, Buffer.alloc(1024)]);
}

/**
 * A swarm manager as a run's engine. A run is a replicated-job service (one task, no restart) that
 * reserves as many `NVIDIA-GPU` generic resources as its tensor-parallel size: the swarm keeps the
 * task pending until a node has them free, so people and windows sharing the GPUs never
 * oversubscribe them. The service id is the run's "container id"; exec, logs and files go to the
 * task's container (on this engine: a one-node swarm, or the manager's own node).
 */
export class SwarmRuntime extends DockerRuntime {
  private readonly pendingFiles = new Map<string, Array<{ dir: string; tar: Buffer | NodeJS.ReadableStream }>>();
  private readonly containers = new Map<string, string>();

  override async create(spec: ContainerSpec): Promise<string> {
    const gpus = spec.gpuIds.length;
    // The task starts at once when scheduled; it waits for the run's files (put after it is placed).
    const wait = `import os,sys,time\nwhile not os.path.exists(${JSON.stringify(READY)}): time.sleep(0.1)\nos.execvp(sys.argv[1], sys.argv[1:])`;
    const service = await this.call(s =>
      this.docker.createService({
        Name: spec.name,
        Labels: spec.labels,
        TaskTemplate: {
          ContainerSpec: {
            Image: spec.image,
            Labels: spec.labels,
            Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
            Command: ['python3', '-c', wait, ...spec.cmd],
            Dir: spec.workdir,
          },
          Resources: gpus ? { Reservations: { GenericResources: [{ DiscreteResourceSpec: { Kind: GPU_RESOURCE, Value: gpus } }] } } : {},
          RestartPolicy: { Condition: 'none' },
        },
        Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
        abortSignal: s,
      } as never),
    );
    const id = (service as { id?: string; ID?: string }).id ?? (service as { ID?: string }).ID;
    if (!id) throw new RunnerError(`${this.where}: the swarm did not return a service id`, 'docker');
    return id;
  }

  override async putArchive(id: string, dir: string, tar: Buffer | NodeJS.ReadableStream): Promise<void> {
    const c = this.containers.get(id);
    if (c) return super.putArchive(c, dir, tar);
    // Not placed yet: kept until the task has a container.
    this.pendingFiles.set(id, [...(this.pendingFiles.get(id) ?? []), { dir, tar }]);
  }

  private async tasks(id: string): Promise<Task[]> {
    const list = this.docker.listTasks as (o: object) => Promise<Task[]>;
    return this.call(s => list.call(this.docker, { filters: JSON.stringify({ service: [id] }), abortSignal: s }));
  }

  /** The container of the service's task once it runs; null while it is pending; an error if it cannot run. */
  private async placed(id: string): Promise<string | null> {
    const known = this.containers.get(id);
    if (known) return known;
    const [t] = await this.tasks(id);
    const state = t?.Status?.State ?? 'new';
    const cid = t?.Status?.ContainerStatus?.ContainerID;
    if (state === 'running' && cid) {
      this.containers.set(id, cid);
      return cid;
    }
    if (['failed', 'rejected', 'shutdown', 'orphaned', 'remove', 'complete'].includes(state) && !cid)
      throw new RunnerError(
        `${this.where}: the swarm could not run the task (${state}: ${t?.Status?.Err ?? t?.Status?.Message ?? 'no reason given'})`,
        'docker',
      );
    if (cid && state !== 'running') {
      this.containers.set(id, cid);
      return cid;
    }
    return null;
  }

  /** Waits until the swarm has placed the task (GPUs free on a node), then puts the run's files and lets it start. */
  override async start(id: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
      const c = await this.placed(id);
      if (c) {
        for (const f of this.pendingFiles.get(id) ?? []) await super.putArchive(c, f.dir, f.tar);
        this.pendingFiles.delete(id);
        await super.putArchive(c, '/', markerTar(READY));
        return;
      }
      await new Promise(r => setTimeout(r, POLL_MS));
    }
  }

  /** Why a task is still pending ("insufficient resources on 1 node"), for the run's notes. */
  async pendingReason(id: string): Promise<string | null> {
    const [t] = await this.tasks(id).catch(() => [] as Task[]);
    return t && t.Status?.State === 'pending' ? (t.Status.Err ?? t.Status.Message ?? 'pending') : null;
  }

  private async containerOf(id: string): Promise<string> {
    const c = await this.placed(id);
    if (!c) throw new RunnerError(`${this.where}: service ${id.slice(0, 12)} has no running task`, 'docker');
    return c;
  }

  override async exec(id: string, argv: string[], opts: ExecOptions = {}): Promise<ExecOutcome> {
    return super.exec(await this.containerOf(id), argv, opts);
  }

  override async inspect(id: string): Promise<ContainerState | null> {
    let c: string | null;
    try {
      c = await this.placed(id);
    } catch (e) {
      return { running: false, status: 'failed', exitCode: null, oomKilled: false, error: (e as Error).message };
    }
    if (c) return super.inspect(c);
    try {
      const svc = this.docker.getService(id);
      await this.call(s => (svc.inspect as (o: object) => Promise<unknown>).call(svc, { abortSignal: s }));
    } catch {
      return null; // removed
    }
    return { running: false, status: 'pending', exitCode: null, oomKilled: false, error: '' };
  }

  /**
   * Removes the task's container first (force), then the service: a job task whose container is
   * gone frees its GPU reservation at once, where removing only the service left the container
   * running on this engine (20.10) and the GPUs held.
   */
  override async remove(id: string): Promise<void> {
    const c = this.containers.get(id) ?? (await this.placed(id).catch(() => null));
    this.containers.delete(id);
    this.pendingFiles.delete(id);
    if (c) await super.remove(c).catch(() => undefined);
    try {
      const svc = this.docker.getService(id);
      await this.call(s => (svc.remove as (o: object) => Promise<unknown>).call(svc, { abortSignal: s }));
    } catch (e) {
      if (!/no such service|not found|404/i.test(String((e as Error).message))) throw e;
    }
  }

  /** The services carrying `label`, as the runner lists containers (re-attach, clean-up). */
  override async list(label: string): Promise<LabelledContainer[]> {
    const listServices = this.docker.listServices as (o: object) => Promise<Array<{ ID: string; Spec?: { Labels?: Record<string, string> } }>>;
    const services = await this.call(s => listServices.call(this.docker, { filters: JSON.stringify({ label: [label] }), abortSignal: s }));
    const out: LabelledContainer[] = [];
    for (const svc of services) {
      const [t] = await this.tasks(svc.ID).catch(() => [] as Task[]);
      out.push({ id: svc.ID, labels: svc.Spec?.Labels ?? {}, state: t?.Status?.State === 'running' ? 'running' : (t?.Status?.State ?? 'pending') });
    }
    return out;
  }
}
