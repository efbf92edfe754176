import { DockerRuntime } from './dockerRuntime';
import { RunnerError } from './errors';
import { hostAddressProblem, namesRegistry, repositoryOf } from '../core/run/hosts';
import type { ContainerSpec, ContainerState, ExecOptions, ExecOutcome, LabelledContainer } from './runtime';

/** The generic-resource kind a swarm node advertises its GPUs under (daemon.json `node-generic-resources`). */
export const GPU_RESOURCE = 'NVIDIA-GPU';
/** The node label that names a node's own engine address (the manager reaches a task's container there). */
export const ENGINE_LABEL = 'bench-triage.engine';
/** Written after the run's files are in place; the task's command waits for it before it starts. */
const READY = '/.bench-triage-ready';
const POLL_MS = 300;
/**
 * Nodes this process lost a run on, by manager and node id, with when: a run queued again right
 * after is kept off such a node for a while (the manager marks a silent node down only after
 * ~15 s, and would place the new task there meanwhile).
 */
const lostNodes = new Map<string, number>();
const LOST_HOLD_MS = 120_000;
/**
 * Per manager (by `where`), while runs of this process wait to be placed: a watch of each node
 * engine's task containers, so that a task placed is seen as its node creates its container rather
 * than at the next poll (up to POLL_MS later, with its GPUs reserved and idle meanwhile).
 */
const placementWatches = new Map<string, PlacementWatch>();
/** A watch no run waits on is kept this long (the next run of a campaign comes at once), then stopped. */
const WATCH_LINGER_MS = 10_000;
interface PlacementWatch {
  users: number;
  /** Resolvers of the waits, by service id (with the container a node made for it). */
  waiting: Map<string, Set<(p?: Placement | null) => void>>;
  stops: Array<() => void>;
  linger: ReturnType<typeof setTimeout> | null;
}

/** How often the manager is asked about the node of a running phase (the swarm marks a silent node down within ~15 s). */
const NODE_WATCH_MS = 3000;

interface Task {
  ID: string;
  NodeID?: string;
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
 * task's container on the node the swarm placed it: the manager's own engine, or the engine the
 * node's `bench-triage.engine` label names (reached with the manager's TLS or SSH settings).
 */
export class SwarmRuntime extends DockerRuntime {
  private readonly pendingFiles = new Map<string, Array<{ dir: string; tar: Buffer | NodeJS.ReadableStream }>>();
  /** Where each service's task runs: its container, and the node's engine (null: this, the manager's own). */
  private readonly containers = new Map<string, Placement>();
  private readonly nodeEngines = new Map<string, Promise<NodeEngine>>();
  private ownNode: Promise<string | null> | null = null;

  /**
   * An image a registry holds is named by digest for the task (every node runs the same bytes,
   * whatever the tag points to later; a node without it pulls it). A local-only image must be on
   * the node already (a one-node swarm, or loaded by hand).
   */
  override async hasImage(image: string): Promise<boolean> {
    if (namesRegistry(image)) return (await this.digestOf(image)) !== null;
    return super.hasImage(image);
  }

  override async pull(image: string, signal?: AbortSignal): Promise<void> {
    // Nodes pull what their task needs; the manager is not where runs go.
    if (namesRegistry(image))
      throw new RunnerError(`${this.where}: ${image} is not in its registry (or the registry cannot be reached from the manager)`, 'docker');
    return super.pull(image, signal);
  }

  /** `registry/name@sha256:…` for a registry's image, as the manager's engine reads it from the registry; null when it has none. */
  private async digestOf(image: string): Promise<string | null> {
    if (image.includes('@')) return image;
    const img = this.docker.getImage(image);
    const d = await this.call(s => (img.distribution as (o: object) => Promise<{ Descriptor?: { digest?: string } }>).call(img, { abortSignal: s })).catch(
      () => null,
    );
    const digest = d?.Descriptor?.digest;
    return digest ? `${repositoryOf(image)}@${digest}` : null;
  }

  /** The image each service was created with (by digest when from a registry). */
  private readonly images = new Map<string, string>();
  /** How long each task's node took to pull its image (the task's `preparing` state), once seen. */
  private readonly pulls = new Map<string, { node: string; seconds: number }>();
  private readonly preparingSince = new Map<string, number>();
  private readonly pullChecked = new Set<string>();

  /** The image reference the swarm runs for this service (pinned by digest when from a registry). */
  async imageOf(id: string): Promise<string | null> {
    return this.images.get(id) ?? null;
  }

  /** The node's pull of the image before the run started, when it had to pull. */
  async pullOf(id: string): Promise<{ node: string; seconds: number } | null> {
    return this.pulls.get(id) ?? null;
  }

  override async create(spec: ContainerSpec): Promise<string> {
    const gpus = spec.gpuIds.length;
    const image = namesRegistry(spec.image) ? ((await this.digestOf(spec.image)) ?? spec.image) : spec.image;
    // The task starts at once when scheduled; it waits for the run's files (put after it is placed).
    const wait = `import os,sys,time\nwhile not os.path.exists(${JSON.stringify(READY)}): time.sleep(0.02)\nos.execvp(sys.argv[1], sys.argv[1:])`;
    const service = await this.call(s =>
      this.docker.createService({
        Name: spec.name,
        Labels: spec.labels,
        TaskTemplate: {
          ContainerSpec: {
            Image: image,
            Labels: spec.labels,
            Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
            Command: ['python3', '-c', wait, ...spec.cmd],
            Dir: spec.workdir,
          },
          Resources: gpus ? { Reservations: { GenericResources: [{ DiscreteResourceSpec: { Kind: GPU_RESOURCE, Value: gpus } }] } } : {},
          RestartPolicy: { Condition: 'none' },
          Placement: { Constraints: this.avoided().map(n => `node.id!=${n}`) },
        },
        Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
        abortSignal: s,
      } as never),
    );
    const id = (service as { id?: string; ID?: string }).id ?? (service as { ID?: string }).ID;
    if (!id) throw new RunnerError(`${this.where}: the swarm did not return a service id`, 'docker');
    this.images.set(id, image);
    return id;
  }

  override async putArchive(id: string, dir: string, tar: Buffer | NodeJS.ReadableStream): Promise<void> {
    const c = this.containers.get(id);
    if (c) return c.engine ? c.engine.putArchive(c.container, dir, tar) : super.putArchive(c.container, dir, tar);
    // Not placed yet: kept until the task has a container.
    this.pendingFiles.set(id, [...(this.pendingFiles.get(id) ?? []), { dir, tar }]);
  }

  private async tasks(id: string): Promise<Task[]> {
    const list = this.docker.listTasks as (o: object) => Promise<Task[]>;
    return this.call(s => list.call(this.docker, { filters: JSON.stringify({ service: [id] }), abortSignal: s }));
  }

  /** The container of the service's task and its node's engine once it runs; null while it is pending; an error if it cannot run. */
  private async placed(id: string): Promise<Placement | null> {
    const known = this.containers.get(id);
    if (known) return known;
    const [t] = await this.tasks(id);
    const state = t?.Status?.State ?? 'new';
    const cid = t?.Status?.ContainerStatus?.ContainerID;
    // `preparing` is the node pulling the image: timed apart from the run. A pull of a few small
    // layers can begin and end between two polls, so the node is also asked, once it is assigned,
    // whether it has the image at all: if not, the pull starts now.
    if (t?.NodeID && !this.pullChecked.has(id) && ['assigned', 'accepted', 'preparing'].includes(state)) {
      this.pullChecked.add(id);
      const ref = this.images.get(id);
      if (ref && ref.includes('@') && namesRegistry(ref)) {
        const node = await this.engineOfNode(t.NodeID).catch(() => null);
        const has = node ? await (node.engine ? node.engine.hasImage(ref) : super.hasImage(ref)).catch(() => true) : true;
        if (!has && !this.preparingSince.has(id)) this.preparingSince.set(id, Date.now());
      }
    }
    if (state === 'preparing' && !this.preparingSince.has(id)) this.preparingSince.set(id, Date.now());
    const pastPull = !['new', 'pending', 'assigned', 'accepted', 'preparing'].includes(state);
    if (pastPull && this.preparingSince.has(id) && t?.NodeID) {
      const since = this.preparingSince.get(id)!;
      this.preparingSince.delete(id);
      const node = await this.engineOfNode(t.NodeID).catch(() => null);
      this.pulls.set(id, { node: node?.name ?? t.NodeID.slice(0, 12), seconds: (Date.now() - since) / 1000 });
    }
    const ended = ['failed', 'rejected', 'shutdown', 'orphaned', 'remove', 'complete'].includes(state);
    if (ended && t?.NodeID) {
      // Stopped before the run started because its node was drained, went down or was removed.
      const why = await this.nodeLost(id);
      if (why) throw new RunnerError(`${this.where}: ${why} before the run started`, 'unreachable');
    }
    if (!cid) {
      if (ended)
        throw new RunnerError(
          `${this.where}: the swarm could not run the task (${state}: ${t?.Status?.Err ?? t?.Status?.Message ?? 'no reason given'})`,
          'docker',
        );
      return null;
    }
    const node = await this.engineOfNode(t.NodeID ?? '');
    const p: Placement = { container: cid, engine: node.engine, node: node.name, nodeId: t.NodeID ?? '' };
    this.containers.set(id, p);
    return p;
  }

  /** Nodes lost recently through this manager (their ids). */
  private avoided(): string[] {
    const now = Date.now();
    const out: string[] = [];
    for (const [key, at] of lostNodes) {
      if (now - at > LOST_HOLD_MS) lostNodes.delete(key);
      else if (key.startsWith(`${this.where}\0`)) out.push(key.slice(this.where.length + 1));
    }
    return out;
  }

  private markLost(p: Placement): void {
    if (p.nodeId) lostNodes.set(`${this.where}\0${p.nodeId}`, Date.now());
  }

  /** The node a run's task landed on (its host name), once placed; null before. */
  async nodeOf(id: string): Promise<string | null> {
    return (await this.placed(id).catch(() => null))?.node ?? null;
  }

  /**
   * The engine of a swarm node: the manager's own (null) for its own node, else the address the
   * node's label names, with this host's TLS or SSH settings. A node without the label is an error
   * saying how to label it.
   */
  private engineOfNode(nodeId: string): Promise<NodeEngine> {
    let e = this.nodeEngines.get(nodeId);
    if (!e) {
      e = this.resolveNode(nodeId);
      this.nodeEngines.set(nodeId, e);
      e.catch(() => this.nodeEngines.delete(nodeId));
    }
    return e;
  }

  private async resolveNode(nodeId: string): Promise<NodeEngine> {
    this.ownNode ??= this.call(s => (this.docker.info as (o: object) => Promise<{ Swarm?: { NodeID?: string } }>).call(this.docker, { abortSignal: s })).then(
      i => i.Swarm?.NodeID ?? null,
    );
    const own = await this.ownNode;
    const node = this.docker.getNode(nodeId);
    const info = await this.call(s =>
      (node.inspect as (o: object) => Promise<{ Spec?: { Labels?: Record<string, string> }; Description?: { Hostname?: string } }>).call(node, {
        abortSignal: s,
      }),
    ).catch(() => null);
    const name = info?.Description?.Hostname ?? nodeId.slice(0, 12);
    if (!nodeId || nodeId === own) return { engine: null, name };
    const addr = info?.Spec?.Labels?.[ENGINE_LABEL];
    if (!addr)
      throw new RunnerError(
        `${this.where}: the swarm placed the run on node ${name}, whose engine this host cannot reach: give the node its engine's address (\`docker node update --label-add ${ENGINE_LABEL}=tcp://ADDRESS:2376 ${name}\`, reached with this host's TLS or SSH settings)`,
        'docker',
      );
    const problem = hostAddressProblem(addr);
    if (problem) throw new RunnerError(`${this.where}: node ${name}: label ${ENGINE_LABEL}: ${problem}`, 'docker');
    return { engine: new DockerRuntime({ ...this.host, kind: 'docker', label: `${this.host.label} node ${name}`, docker: addr }), name };
  }

  /**
   * Waits until the swarm has placed the task (GPUs free on a node), then puts the run's files and
   * lets it start. The placement is seen as the node's engine creates the task's container (its
   * event), or at the latest by the next poll of the manager.
   */
  override async start(id: string, signal?: AbortSignal): Promise<void> {
    const asked = Date.now();
    let seenBy: 'event' | 'poll' = 'poll';
    const watch = await this.placementWatch();
    // After its container's event the manager may not yet name the container: asked again soon, a few times.
    let soon = 0;
    try {
      for (;;) {
        if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
        const c = await this.placed(id);
        if (c) {
          this.waits.set(id, { seconds: (Date.now() - asked) / 1000, seenBy });
          for (const f of this.pendingFiles.get(id) ?? []) await this.putArchive(id, f.dir, f.tar);
          this.pendingFiles.delete(id);
          await this.putArchive(id, '/', markerTar(READY));
          return;
        }
        const woken = await placedOrPoll(watch, id, signal, soon > 0 ? SOON_MS : POLL_MS);
        soon = woken ? SOON_TRIES : Math.max(0, soon - 1);
        if (!woken) continue;
        seenBy = 'event';
        // The node named the container: a local image's run goes on from there, without waiting for
        // the manager to say so too. A registry image's waits for the manager, which tells whether
        // the node had to pull it first (timed apart).
        const ref = this.images.get(id);
        if (ref && !(ref.includes('@') && namesRegistry(ref)) && !this.containers.has(id)) this.containers.set(id, woken);
      }
    } finally {
      releaseWatch(this.where, watch);
    }
  }

  private readonly waits = new Map<string, { seconds: number; seenBy: 'event' | 'poll' }>();

  async waitOf(id: string): Promise<{ seconds: number; seenBy: 'event' | 'poll' } | null> {
    return this.waits.get(id) ?? null;
  }

  /** This manager's placement watch, made on first use (each node's engine watched, when reachable). */
  private async placementWatch(): Promise<PlacementWatch> {
    let w = placementWatches.get(this.where);
    if (w) {
      w.users++;
      if (w.linger) clearTimeout(w.linger);
      w.linger = null;
      return w;
    }
    w = { users: 1, waiting: new Map(), stops: [], linger: null };
    placementWatches.set(this.where, w);
    const watch = w;
    const wake = (service: string, p: Placement) => {
      for (const r of watch.waiting.get(service) ?? []) r(p);
    };
    const listNodes = this.docker.listNodes as (o: object) => Promise<Array<{ ID: string }>>;
    const nodes = await this.call(s => listNodes.call(this.docker, { abortSignal: s })).catch(() => [] as Array<{ ID: string }>);
    for (const n of nodes) {
      const node = await this.engineOfNode(n.ID).catch(() => null);
      if (!node) continue; // not reachable from here: its placements are seen by the poll
      const seen = (service: string, container: string) => wake(service, { container, engine: node.engine, node: node.name, nodeId: n.ID });
      watch.stops.push(node.engine ? node.engine.watchTaskContainers(LABEL_RUN, seen) : super.watchTaskContainers(LABEL_RUN, seen));
    }
    return watch;
  }

  /** Whether the task's container has the ready marker, put after the run's files: a process killed before it left them half put. */
  async filesIn(id: string): Promise<boolean> {
    const out = await this.exec(id, ['test', '-e', READY], { timeoutMs: 15_000 });
    return out.exitCode === 0;
  }

  /**
   * Why a placed run's node was lost, as the manager sees it: the node down, drained, paused or
   * removed from the swarm, or its engine not answering. Null when it was never placed.
   */
  async lostWhy(id: string): Promise<string | null> {
    const p = this.containers.get(id);
    if (!p || !p.engine) return null;
    this.markLost(p);
    return (await this.nodeTrouble(p)) ?? `node ${p.node} (its engine does not answer)`;
  }

  /**
   * Why the swarm took the run's node away (down, drained, removed), or null: for a run placed, or
   * one whose task was stopped on its node before it had a container. Such a node is avoided for
   * a while by the next attempts made through this manager.
   */
  async nodeLost(id: string): Promise<string | null> {
    let p = this.containers.get(id) ?? null;
    if (!p) {
      const [t] = await this.tasks(id).catch(() => [] as Task[]);
      if (!t?.NodeID) return null;
      const name = (await this.engineOfNode(t.NodeID).catch(() => null))?.name ?? t.NodeID.slice(0, 12);
      p = { container: '', engine: null, node: name, nodeId: t.NodeID };
    }
    const why = await this.nodeTrouble(p);
    if (why) this.markLost(p);
    return why;
  }

  /** Why a task is still pending ("insufficient resources on 1 node"), for the run's notes. */
  async pendingReason(id: string): Promise<string | null> {
    const [t] = await this.tasks(id).catch(() => [] as Task[]);
    return t && t.Status?.State === 'pending' ? (t.Status.Err ?? t.Status.Message ?? 'pending') : null;
  }

  private async containerOf(id: string): Promise<Placement> {
    const c = await this.placed(id);
    if (!c) throw new RunnerError(`${this.where}: service ${id.slice(0, 12)} has no running task`, 'docker');
    return c;
  }

  override async exec(id: string, argv: string[], opts: ExecOptions = {}): Promise<ExecOutcome> {
    const c = await this.containerOf(id);
    if (!c.engine) return super.exec(c.container, argv, opts);
    if (opts.detach) return c.engine.exec(c.container, argv, opts);
    // A node lost without a word (power, network) leaves its stream open: the manager's view of
    // the node is watched while the phase runs, and a node gone ends the phase as lost.
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    if (opts.signal?.aborted) ctl.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let lost: string | null = null;
    const watch = setInterval(() => {
      void this.nodeTrouble(c).then(why => {
        if (why && !lost) {
          lost = why;
          ctl.abort();
        }
      });
    }, NODE_WATCH_MS);
    try {
      const out = await c.engine.exec(c.container, argv, { ...opts, signal: ctl.signal });
      // The swarm stopping the task (a drain, a node removed) ends the phase with a signal's exit code.
      if (out.exitCode !== 0 && out.exitCode !== null) {
        const why = await this.nodeTrouble(c);
        if (why) throw new RunnerError(`${this.where}: ${why}`, 'unreachable');
      }
      return out;
    } catch (e) {
      if (lost) throw new RunnerError(`${this.where}: ${lost}`, 'unreachable');
      throw e;
    } finally {
      clearInterval(watch);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Why the swarm no longer runs a placed task where it is (its node down, drained or removed), or null. */
  private async nodeTrouble(p: Placement): Promise<string | null> {
    if (!p.nodeId) return null;
    const node = this.docker.getNode(p.nodeId);
    const info = await this.call(s =>
      (node.inspect as (o: object) => Promise<{ Status?: { State?: string; Message?: string }; Spec?: { Availability?: string } }>).call(node, {
        abortSignal: s,
      }),
    ).catch(e => (/no such node|not found|404/i.test(String((e as Error).message)) ? ('removed' as const) : null));
    if (info === 'removed') return `node ${p.node} was removed from the swarm`;
    if (!info) return null; // the manager itself did not answer: nothing known of the node
    const state = info.Status?.State ?? 'unknown';
    if (state !== 'ready') return `node ${p.node} is ${state}${info.Status?.Message ? ` (${info.Status.Message})` : ''}`;
    if (info.Spec?.Availability === 'drain') return `node ${p.node} was drained`;
    return null;
  }

  override async inspect(id: string): Promise<ContainerState | null> {
    // A removed service is gone, whatever its tasks' history still says (an ended task reads as
    // "could not run": the runner's removal, which waits for null, would retry for 30 s).
    if (!this.containers.has(id))
      try {
        const svc = this.docker.getService(id);
        await this.call(s => (svc.inspect as (o: object) => Promise<unknown>).call(svc, { abortSignal: s }));
      } catch (e) {
        if (/no such service|not found|404/i.test(String((e as Error).message))) return null;
        throw e;
      }
    let c: Placement | null;
    try {
      c = await this.placed(id);
    } catch (e) {
      return { running: false, status: 'failed', exitCode: null, oomKilled: false, error: (e as Error).message };
    }
    if (c) return c.engine ? c.engine.inspect(c.container) : super.inspect(c.container);
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
    this.waits.delete(id);
    this.pullChecked.delete(id);
    this.preparingSince.delete(id);
    if (c) await (c.engine ? c.engine.remove(c.container) : super.remove(c.container)).catch(() => undefined);
    else await this.defuse(id).catch(() => undefined);
    try {
      const svc = this.docker.getService(id);
      await this.call(s => (svc.remove as (o: object) => Promise<unknown>).call(svc, { abortSignal: s }));
    } catch (e) {
      if (!/no such service|not found|404/i.test(String((e as Error).message))) throw e;
    }
  }

  /**
   * A task still waiting for GPUs is taken out of the swarm before its service goes: on engines
   * before 24.0 (swarmkit's fix of 2023) removing a job service leaves its pending task, which the
   * scheduler later starts on the first GPUs freed, with no service and nobody to stop it. A job
   * allowed no task at once (MaxConcurrent 0) has its waiting task removed at once.
   */
  private async defuse(id: string): Promise<void> {
    const svc = this.docker.getService(id);
    const info = await this.call(s =>
      (svc.inspect as (o: object) => Promise<{ Version?: { Index?: number }; Spec?: Record<string, unknown> }>).call(svc, { abortSignal: s }),
    );
    const spec = info.Spec;
    const job = (spec?.Mode as { ReplicatedJob?: { TotalCompletions?: number } } | undefined)?.ReplicatedJob;
    if (!spec || !job) return;
    await this.call(s =>
      (svc.update as (o: object) => Promise<unknown>).call(svc, {
        ...spec,
        version: info.Version?.Index,
        Mode: { ReplicatedJob: { ...job, MaxConcurrent: 0 } },
        abortSignal: s,
      }),
    );
  }

  /**
   * The services carrying `label`, as the runner lists containers (re-attach, clean-up). The
   * containers of runs whose service is gone are removed from every ready node first: a node lost
   * mid-run and back keeps its old task's container (the swarm does not remove it).
   */
  override async list(label: string): Promise<LabelledContainer[]> {
    const listServices = this.docker.listServices as (o: object) => Promise<Array<{ ID: string; Spec?: { Labels?: Record<string, string> } }>>;
    const services = await this.call(s => listServices.call(this.docker, { filters: JSON.stringify({ label: [label] }), abortSignal: s }));
    await this.sweep(label, new Set(services.map(x => x.ID))).catch(() => undefined);
    const out: LabelledContainer[] = [];
    for (const svc of services) {
      const [t] = await this.tasks(svc.ID).catch(() => [] as Task[]);
      out.push({ id: svc.ID, labels: svc.Spec?.Labels ?? {}, state: t?.Status?.State === 'running' ? 'running' : (t?.Status?.State ?? 'pending') });
    }
    return out;
  }

  /** Removes, on each ready node this host can reach, the stopped `label`led containers of services not in `live`. */
  private async sweep(label: string, live: ReadonlySet<string>): Promise<void> {
    const listNodes = this.docker.listNodes as (o: object) => Promise<Array<{ ID: string; Status?: { State?: string } }>>;
    const nodes = await this.call(s => listNodes.call(this.docker, { abortSignal: s }));
    for (const n of nodes) {
      if (n.Status?.State !== 'ready') continue;
      const node = await this.engineOfNode(n.ID).catch(() => null);
      if (!node) continue;
      const list = node.engine ? (l: string) => node.engine!.list(l) : (l: string) => super.list(l);
      const remove = node.engine ? (id: string) => node.engine!.remove(id) : (id: string) => super.remove(id);
      for (const c of await list(label).catch(() => [])) {
        const service = c.labels['com.docker.swarm.service.id'];
        // Only stopped ones: a container starting for a service another process has just made is not yet in `live`.
        if (service && !live.has(service) && (c.state === 'exited' || c.state === 'dead')) await remove(c.id).catch(() => undefined);
      }
    }
  }
}

interface Placement {
  container: string;
  /** The node's engine; null when the task runs on the manager's own node. */
  engine: DockerRuntime | null;
  /** The node's host name, for messages and records. */
  node: string;
  nodeId: string;
}

interface NodeEngine {
  engine: DockerRuntime | null;
  name: string;
}

/** The run label every task carries (runner/execute.ts). */
const LABEL_RUN = 'bench-triage.run-id';

/** How soon, and how many times, the manager is asked again about a task a node has made a container for. */
const SOON_MS = 25;
const SOON_TRIES = 40;

/** Resolves with where service `id`'s container is, as a watched node creates it; null after `ms`, or at once on cancel. */
function placedOrPoll(w: PlacementWatch, id: string, signal: AbortSignal | undefined, ms: number): Promise<Placement | null> {
  return new Promise<Placement | null>(resolve => {
    let set = w.waiting.get(id);
    if (!set) w.waiting.set(id, (set = new Set()));
    const waiters = set;
    const done = (p: Placement | null = null) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      waiters.delete(done);
      if (!waiters.size) w.waiting.delete(id);
      resolve(p);
    };
    const onAbort = () => done(null);
    const timer = setTimeout(onAbort, ms);
    waiters.add(done);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One run no longer waits on the watch; the last one leaves it to linger, then stops it. */
function releaseWatch(where: string, w: PlacementWatch): void {
  if (--w.users > 0) return;
  w.linger = setTimeout(() => {
    if (w.users > 0) return;
    for (const stop of w.stops) stop();
    if (placementWatches.get(where) === w) placementWatches.delete(where);
  }, WATCH_LINGER_MS);
  w.linger.unref?.();
}
