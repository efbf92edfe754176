import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { DockerRuntime } from './dockerRuntime';
import { RunnerError } from './errors';
import { chooseSlot, type Slot } from './gpuSlots';
import { hostAddressProblem, namesRegistry, repositoryOf } from '../core/run/hosts';
import { ownerAlive, ownerHere } from '../platform/processAlive';
import { joinTars, tarOf } from './containerFiles';
import {
  ARMED,
  FIRST,
  FREED,
  GATE,
  GIVE_BACK_SIGNAL,
  GO_NOW,
  GO_SIGNAL,
  HELD,
  HOLDER,
  KEEPER,
  NEXT_SIGNAL,
  READY,
  FILES_ENV,
  FILES_SECRET,
  SLOT_DIR,
  SLOT_VOLUME,
  UNCLAIMED,
  WITHDRAW_SIGNAL,
  WITHDRAWN_EXIT,
} from './slotScripts';
import {
  WITHDRAWN_STATE,
  type ContainerSpec,
  type ContainerState,
  type ExecOptions,
  type ExecOutcome,
  type FirstPhase,
  type LabelledContainer,
} from './runtime';

/** The generic-resource kind a swarm node advertises its GPUs under (daemon.json `node-generic-resources`). */
export const GPU_RESOURCE = 'NVIDIA-GPU';
/** The node label that names a node's own engine address (the manager reaches a task's container there). */
export const ENGINE_LABEL = 'bench-triage.engine';
/** The labels of a GPU slot's holder service (never the run label: a holder is not a run). */
export const SLOT_LABEL = 'bench-triage.slot';
const SLOT_OWNER_LABEL = 'bench-triage.slot-owner';
/** How long a removal waits for a run's pin to end, then for the pinned run's container to be made. */
const PIN_WAIT_MS = 5000;
const TASK_ENDED = ['failed', 'rejected', 'shutdown', 'orphaned', 'remove', 'complete'];
/** The label of the secrets that carry a run's files (its service id). */
const FILES_LABEL = 'bench-triage.files-of';
/** A secret holds 500 KB at most (swarmkit's MaxSecretSize); files beyond this many pieces are put into the container instead. */
const FILES_PIECE = 500 * 1024;
const FILES_PIECES_MAX = 16;
const gzipped = promisify(gzip);
/** A slot no run has is given back to the swarm after this (a campaign's next run comes at once). */
const SLOT_LINGER_MS = 2000;
/**
 * How often a process renews the holders of its slots that have runs: a run's container may take
 * minutes to claim its slot (its node pulling a vLLM image), and its holder must not end meanwhile.
 */
const RENEW_MS = 5000;
const OWNER = ownerHere();
/** The promise `map` holds for `key`, made on first ask; a rejected one is forgotten, so that it may be asked again. */
function once<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    p = make();
    map.set(key, p);
    p.catch(() => map.delete(key));
  }
  return p;
}

/** Where a slot's holder landed: its node, container, and the GPUs the swarm assigned it. */
interface SlotPlace {
  nodeId: string;
  node: string;
  engine: DockerRuntime | null;
  container: string;
  /** `DOCKER_RESOURCE_NVIDIA-GPU=…` as the swarm set it in the holder: its runs get the same, for the NVIDIA runtime. */
  resourceEnv: string[];
}
interface HeldSlot extends Slot {
  image: string;
  owner: SwarmRuntime;
  service: Promise<string>;
  place: Promise<SlotPlace>;
  /** The holder's place once known. */
  at: SlotPlace | null;
  linger: ReturnType<typeof setTimeout> | null;
  /** Told of every change of the slot's runs or its death (runs waiting for their turn). */
  wake: Set<() => void>;
  /** The run whose container holds the slot's GPUs now (its gate answered), or null. */
  holding: string | null;
  /**
   * Runs behind another here that could move to a slot freed first (their files came with their
   * container), each with how to ask it: true when it takes the offer.
   */
  movers: Map<string, (to: HeldSlot) => boolean>;
}
/**
 * A slot left with no run waits this long for a campaign's next run before it takes a run waiting
 * behind another slot's run under way (that run may end in minutes; a free GPU meanwhile is idle).
 */
const STEAL_AFTER_MS = 400;
/** Containers of runs that withdrew from a slot to move to another: their events and tasks are the past. */
const withdrawnContainers = new Set<string>();
/** Tasks of runs from before they moved (the task the run's service ran on its first slot). */
const supersededTasks = new Set<string>();
/** Adds `v` to a process-wide set kept to its latest few thousand. */
function remember(set: Set<string>, v: string): void {
  set.add(v);
  if (set.size > 4096) set.delete(set.values().next().value!);
}
/** Thrown by a run's wait for its GPUs when it withdrew to take slot `to`, freed first. */
class SlotMove extends Error {
  constructor(readonly to: HeldSlot) {
    super('moved to a slot that freed first');
  }
}
/** This process's slots, per manager (by `where`). */
const slotPools = new Map<string, Map<string, HeldSlot>>();
interface DeathWatch {
  /** Resolvers of deaths awaited, by container id. */
  waiting: Map<string, () => void>;
  /** Resolvers of SIGKILLs awaited (the engine has sent it), by container id. */
  killing: Map<string, () => void>;
  stop: () => void;
}
/** Per manager and node: the node engine's `die` and `kill` events of run containers, while this process has slots there. */
const deathWatches = new Map<string, DeathWatch>();
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
  /** Containers seen, by service id (the latest few hundred): a wait that begins after its event still gets it. */
  seen: Map<string, Placement>;
  stops: Array<() => void>;
  linger: ReturnType<typeof setTimeout> | null;
}

/** How often the manager is asked about the node of a running phase (the swarm marks a silent node down within ~15 s). */
const NODE_WATCH_MS = 3000;

interface Task {
  ID: string;
  CreatedAt?: string;
  JobIteration?: { Index?: number };
  NodeID?: string;
  /** The generic resources (GPUs) the swarm assigned the task, from its assignment on. */
  GenericResources?: GenericResource[];
  Status?: { State?: string; Err?: string; Message?: string; ContainerStatus?: { ContainerID?: string; ExitCode?: number } };
  DesiredState?: string;
}

interface GenericResource {
  NamedResourceSpec?: { Kind?: string; Value?: string };
  DiscreteResourceSpec?: { Kind?: string; Value?: number };
}

/**
 * The `DOCKER_RESOURCE_<KIND>` variables the engine gives a task's container for the generic
 * resources the swarm assigned it (names joined by commas; a count for a discrete kind): the run
 * pinned beside a holder gets its holder's, for the NVIDIA runtime's `swarm-resource`.
 */
export function resourceEnv(assigned: GenericResource[]): string[] {
  const named = new Map<string, string[]>();
  const out: string[] = [];
  for (const g of assigned) {
    if (g.NamedResourceSpec?.Kind && g.NamedResourceSpec.Value !== undefined) {
      const k = g.NamedResourceSpec.Kind.toUpperCase();
      named.set(k, [...(named.get(k) ?? []), g.NamedResourceSpec.Value]);
    } else if (g.DiscreteResourceSpec?.Kind) out.push(`DOCKER_RESOURCE_${g.DiscreteResourceSpec.Kind.toUpperCase()}=${g.DiscreteResourceSpec.Value ?? 0}`);
  }
  for (const [k, v] of named) out.push(`DOCKER_RESOURCE_${k}=${v.join(',')}`);
  return out;
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

  /**
   * A GPU run's service is made paused (`MaxConcurrent: 0`, no task) and without a reservation of
   * its own: `start` gives it a slot (a holder that keeps the swarm's reservation on a node), pins it
   * to that node with the holder's GPUs, and lets it run. A run without GPUs runs at once.
   */
  override async create(spec: ContainerSpec): Promise<string> {
    const gpus = spec.gpuIds.length;
    const image = namesRegistry(spec.image) ? ((await this.digestOf(spec.image)) ?? spec.image) : spec.image;
    const service = await this.call(s =>
      this.docker.createService({
        Name: spec.name,
        Labels: spec.labels,
        TaskTemplate: {
          ContainerSpec: {
            Image: image,
            Labels: spec.labels,
            Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
            // The task starts at once when scheduled; it waits for the run's files (put after it is placed), then for its GPUs.
            Command: ['python3', '-c', KEEPER, ...spec.cmd],
            Dir: spec.workdir,
            Mounts: gpus ? [{ Type: 'volume', Source: SLOT_VOLUME, Target: SLOT_DIR }] : [],
          },
          RestartPolicy: { Condition: 'none' },
          Placement: { Constraints: this.avoided().map(n => `node.id!=${n}`) },
        },
        Mode: { ReplicatedJob: { MaxConcurrent: gpus ? 0 : 1, TotalCompletions: 1 } },
        abortSignal: s,
      } as never),
    );
    const id = (service as { id?: string; ID?: string }).id ?? (service as { ID?: string }).ID;
    if (!id) throw new RunnerError(`${this.where}: the swarm did not return a service id`, 'docker');
    this.images.set(id, image);
    if (gpus) this.slotless.set(id, { gpus, image });
    return id;
  }

  /** GPU runs made paused, not yet given a slot. */
  private readonly slotless = new Map<string, { gpus: number; image: string }>();
  /** The slot of each run given one. */
  private readonly slotOf = new Map<string, HeldSlot>();

  /**
   * Gives run `id` a slot (a free one, a new holder, or the slot of a run under way, to take its GPUs
   * as that run's container dies), waits until the holder is placed, then pins the run's service to
   * the holder's node with its GPUs and lets the swarm run it.
   */
  private async takeSlot(id: string, signal?: AbortSignal, first?: FirstPhase): Promise<void> {
    const want = this.slotless.get(id)!;
    let pool = slotPools.get(this.where);
    if (!pool) slotPools.set(this.where, (pool = new Map()));
    const cap = this.host.gpus && this.host.gpus > 0 ? this.host.gpus : Infinity;
    let slot: HeldSlot;
    for (;;) {
      slot = chooseSlot(pool.values(), want.gpus, cap, () => this.newSlot(pool!, want.gpus, want.image)).slot;
      // Taken before the look at its node: runs choosing at the same time never both follow the
      // same run (one GPU left with no run after it while two wait on another), and an idle
      // slot's linger cannot give it back meanwhile.
      slot.runs.add(id);
      if (slot.linger) clearTimeout(slot.linger);
      slot.linger = null;
      // A slot whose node was drained, went down or left the swarm is given up, and another chosen.
      const why = slot.at ? await this.nodeTrouble({ container: '', engine: slot.at.engine, node: slot.at.node, nodeId: slot.at.nodeId }, signal) : null;
      // Cancelled or removed meanwhile: its removal found it in no slot, so it leaves this one
      // itself (a run left in a slot's line would hold that slot, and block the runs behind it).
      if (signal?.aborted || !this.slotless.has(id)) {
        this.slotOf.set(id, slot);
        this.releaseSlot(id);
        throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
      }
      if (!why) break;
      slot.runs.delete(id);
      this.markLost({ container: '', engine: slot.at!.engine, node: slot.at!.node, nodeId: slot.at!.nodeId });
    }
    this.slotless.delete(id);
    this.slotOf.set(id, slot);
    const place = await new Promise<SlotPlace>((resolve, reject) => {
      const onAbort = () => reject(new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      slot.place.then(resolve, reject).finally(() => signal?.removeEventListener('abort', onAbort));
    });
    this.deathWatch(place);
    // A run behind another on its slot is let run once that one holds the GPUs (or has gone): its
    // container is ready long before that run ends, and at a campaign's start it does not compete
    // with the first runs' containers on the node's engine (the GPUs' idle time then).
    const ahead = new AbortController();
    await this.turn(id, slot, signal, () => ahead.abort(), ahead.signal);
    if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
    // First in line now means first until it ends: runs only leave a slot's line from its front.
    const bundle = await this.bundleFiles(id, first, [...slot.runs][0] === id, signal);
    await this.pin(id, slot, place, signal, bundle);
    this.pinned.add(id);
  }

  /** The slot's variables each pinned run was given (replaced when it moves to another slot). */
  private readonly slotEnv = new Map<string, string[]>();

  /**
   * Pins run `id`'s service to its slot's node with the slot's GPUs and lets the swarm run it (with
   * its files as secrets when bundled). Any update of a job runs it again: a run moved to another
   * slot, its command withdrawn, is pinned anew and gets a new task there.
   */
  private async pin(
    id: string,
    slot: HeldSlot,
    place: SlotPlace,
    signal: AbortSignal | undefined,
    bundle: { secrets: Array<{ id: string; name: string }> } | null,
  ): Promise<void> {
    const svc = this.docker.getService(id);
    const info = await this.call(s =>
      (svc.inspect as (o: object) => Promise<{ Version?: { Index?: number }; Spec?: Record<string, any> }>).call(svc, { abortSignal: s }),
    );
    const spec = info.Spec!;
    const cs = spec.TaskTemplate.ContainerSpec;
    // A cancel meanwhile lets nothing run: its removal waits for this pin, and finds it paused.
    if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
    const before = new Set(this.slotEnv.get(id) ?? []);
    const env = [`BENCH_TRIAGE_SLOT=${slot.id}`, ...place.resourceEnv];
    this.slotEnv.set(id, env);
    await this.call(s =>
      (svc.update as (o: object) => Promise<unknown>).call(svc, {
        ...spec,
        version: info.Version?.Index,
        TaskTemplate: {
          ...spec.TaskTemplate,
          ContainerSpec: {
            ...cs,
            Env: [...((cs.Env ?? []) as string[]).filter(e => !before.has(e)), ...env, ...(bundle ? [`${FILES_ENV}=${bundle.secrets.length}`] : [])],
            ...(bundle
              ? {
                  Secrets: bundle.secrets.map((secret, i) => ({
                    SecretID: secret.id,
                    SecretName: secret.name,
                    File: { Name: `${FILES_SECRET}.${i}`, UID: '0', GID: '0', Mode: 0o400 },
                  })),
                }
              : {}),
          },
          Placement: { Constraints: [`node.id==${place.nodeId}`] },
        },
        Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
        abortSignal: s,
      }),
    );
  }

  /** Runs pinned to their slot's node (let run), and those being pinned: a removal waits for the pin, then for a pinned run's container. */
  private readonly pinned = new Set<string>();
  private readonly pinning = new Map<string, Promise<unknown>>();

  /** Runs whose files were to go as the swarm's secrets (made or not). */
  private readonly bundleTried = new Set<string>();
  /** Runs whose files went as the swarm's secrets (these), and whether each was first in its slot's line then. */
  private readonly bundled = new Map<string, { secrets: Array<{ id: string; name: string }>; goNow: boolean }>();

  /**
   * The run's files, its first phase and its markers as one gzipped tar in the swarm's secrets
   * (encrypted in the managers' store, on a tmpfs in the container): the node mounts them as it
   * makes the container, and the run's command unpacks them first. Put into the container
   * instead, they wait for its start to end (the engine locks a container while it starts it),
   * then for an extraction of the engine's own: 0.3–0.7 s after the start of a campaign's first
   * runs on a busy node. Null, the files put as before, when a part is a stream, they are too big, or the swarm refuses.
   */
  private async bundleFiles(
    id: string,
    first: FirstPhase | undefined,
    goNow: boolean,
    signal?: AbortSignal,
  ): Promise<{ secrets: Array<{ id: string; name: string }> } | null> {
    const pending = this.pendingFiles.get(id) ?? [];
    if (!pending.every(p => Buffer.isBuffer(p.tar))) return null;
    const parts = (await this.runParts(id, first, goNow)) as Array<{ dir: string; tar: Buffer }>;
    const gz = await gzipped(await joinTars(parts));
    const pieces = Math.ceil(gz.length / FILES_PIECE);
    if (pieces > FILES_PIECES_MAX) return null;
    // From here its removal looks for secrets of it, whatever becomes of this.
    this.bundleTried.add(id);
    const made = await Promise.allSettled(
      Array.from({ length: pieces }, async (_, i) => {
        const name = `${FILES_SECRET}-${id}-${i}`;
        const secret = await this.call(
          s =>
            this.docker.createSecret({
              Name: name,
              Labels: { [FILES_LABEL]: id, [SLOT_OWNER_LABEL]: OWNER },
              Data: gz.subarray(i * FILES_PIECE, (i + 1) * FILES_PIECE).toString('base64'),
              abortSignal: s,
            } as never),
          signal,
        );
        const sid = (secret as { id?: string; ID?: string }).id ?? (secret as { ID?: string }).ID;
        if (!sid) throw new RunnerError(`${this.where}: the swarm did not return a secret id`, 'docker');
        return { id: sid, name };
      }),
    );
    const secrets = made.flatMap(m => (m.status === 'fulfilled' ? [m.value] : []));
    if (secrets.length < pieces || signal?.aborted) {
      await this.removeSecrets(secrets);
      if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
      return null;
    }
    this.bundled.set(id, { secrets, goNow });
    this.pendingFiles.delete(id);
    return { secrets };
  }

  /** The run's files as put so far, then its first phase (a slot's run), the go (first in its slot's line) and the ready marker, last. */
  private async runParts(id: string, first: FirstPhase | undefined, goNow: boolean): Promise<Array<{ dir: string; tar: Buffer | NodeJS.ReadableStream }>> {
    const parts = [...(this.pendingFiles.get(id) ?? [])];
    if (first) parts.push({ dir: '/', tar: await tarOf([{ name: FIRST, body: JSON.stringify(first) }], { bare: true }) });
    if (goNow) parts.push({ dir: '/', tar: markerTar(GO_NOW) });
    parts.push({ dir: '/', tar: markerTar(READY) });
    return parts;
  }

  /** Removes a run's file secrets once its service is gone (a secret a service names cannot be): these, or those its label finds. */
  private async dropFileSecrets(id: string): Promise<void> {
    const known = this.bundled.get(id)?.secrets;
    this.bundled.delete(id);
    const tried = this.bundleTried.delete(id);
    if (known) return this.removeSecrets(known);
    // A run this process made and never tried to send so has none; one it re-attached may.
    if (!tried && this.images.has(id)) return;
    const list = this.docker.listSecrets as (o: object) => Promise<Array<{ ID: string }>>;
    const found = await this.call(s => list.call(this.docker, { filters: JSON.stringify({ label: [`${FILES_LABEL}=${id}`] }), abortSignal: s })).catch(
      () => [] as Array<{ ID: string }>,
    );
    await this.removeSecrets(found.map(x => ({ id: x.ID, name: '' })));
  }

  private async removeSecrets(secrets: Array<{ id: string }>, retries = 5): Promise<void> {
    await Promise.all(
      secrets.map(async ({ id }) => {
        // The swarm may still count the removed service's task a moment.
        for (let i = 0; ; i++) {
          try {
            const secret = this.docker.getSecret(id);
            await this.call(s => (secret.remove as (o: object) => Promise<unknown>).call(secret, { abortSignal: s }));
            return;
          } catch (e) {
            const msg = String((e as Error).message);
            if (/no such secret|not found|404/i.test(msg) || i >= retries || !/in use/i.test(msg)) return;
            await new Promise(r => setTimeout(r, 200));
          }
        }
      }),
    );
  }

  /** A new slot: its holder service reserving `gpus` GPUs, placed by the swarm when a node has them free. */
  private newSlot(pool: Map<string, HeldSlot>, gpus: number, image: string): HeldSlot {
    const slot = {
      id: `s${randomBytes(6).toString('hex')}`,
      gpus,
      runs: new Set<string>(),
      placed: false,
      dead: false,
      busySince: Infinity,
      image,
      owner: this,
      linger: null,
      at: null,
      wake: new Set(),
      holding: null,
      movers: new Map(),
    } as unknown as HeldSlot;
    const labels = { [SLOT_LABEL]: slot.id, [SLOT_OWNER_LABEL]: OWNER };
    slot.service = this.call(s =>
      this.docker.createService({
        Name: `bench-triage-slot-${slot.id}`,
        Labels: labels,
        TaskTemplate: {
          ContainerSpec: {
            Image: image,
            Labels: labels,
            Command: ['python3', '-c', HOLDER, slot.id],
            Mounts: [{ Type: 'volume', Source: SLOT_VOLUME, Target: SLOT_DIR }],
          },
          Resources: { Reservations: { GenericResources: [{ DiscreteResourceSpec: { Kind: GPU_RESOURCE, Value: gpus } }] } },
          RestartPolicy: { Condition: 'none' },
          Placement: { Constraints: this.avoided().map(n => `node.id!=${n}`) },
          // The host's network: a holder only sleeps, and a sandbox of its own (namespace, veth, firewall
          // rules) was most of its start on a busy node (a swarm service cannot have none, moby#44403).
          Networks: [{ Target: 'host' }],
        },
        Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
        abortSignal: s,
      } as never),
    ).then(svc => {
      const id = (svc as { id?: string; ID?: string }).id ?? (svc as { ID?: string }).ID;
      if (!id) throw new RunnerError(`${this.where}: the swarm did not return a service id`, 'docker');
      return id;
    });
    slot.place = slot.service.then(svc => this.holderPlaced(slot, svc));
    slot.place.then(
      p => {
        slot.placed = true;
        slot.at = p;
      },
      () => {
        slot.dead = true;
        if (pool.get(slot.id) === slot) pool.delete(slot.id);
      },
    );
    pool.set(slot.id, slot);
    renewHolders(this.where);
    return slot;
  }

  /**
   * Waits until the swarm has given the holder its node and GPUs (the task's assignment, before
   * its container starts: the run is pinned there at once and starts beside it). Its container is
   * looked up in the background; the run's own task times a pull of the image on the node.
   */
  private async holderPlaced(slot: HeldSlot, svc: string): Promise<SlotPlace> {
    let polls = 0;
    for (;;) {
      if (slot.dead) throw new RunnerError(`${this.where}: the GPU slot was given up`, 'cancelled');
      const [t] = await this.tasks(svc);
      const state = t?.Status?.State ?? 'new';
      // Held for lack of GPUs: holders of a process that died may keep them with nothing left to run.
      if (state === 'pending' && ++polls % 60 === 0) await this.sweepHolders().catch(() => undefined);
      if (['failed', 'rejected', 'shutdown', 'orphaned', 'remove', 'complete'].includes(state)) {
        const node = t?.NodeID ? await this.engineOfNode(t.NodeID).catch(() => null) : null;
        const why = t?.NodeID ? await this.nodeTrouble({ container: '', engine: null, node: node?.name ?? t.NodeID.slice(0, 12), nodeId: t.NodeID }) : null;
        if (why) throw new RunnerError(`${this.where}: ${why} before the run started`, 'unreachable');
        throw new RunnerError(
          `${this.where}: the swarm could not hold GPUs for the run (${state}: ${t?.Status?.Err ?? t?.Status?.Message ?? 'no reason given'})`,
          'docker',
        );
      }
      if (t?.NodeID && t.GenericResources && !['new', 'pending'].includes(state)) {
        const node = await this.engineOfNode(t.NodeID);
        const place: SlotPlace = { nodeId: t.NodeID, node: node.name, engine: node.engine, container: '', resourceEnv: resourceEnv(t.GenericResources) };
        void this.holderContainer(slot, svc, place);
        return place;
      }
      await new Promise(r => setTimeout(r, 50));
    }
  }

  /** The holder's container, once its node has made it (to renew, probe or remove it there). */
  private async holderContainer(slot: HeldSlot, svc: string, place: SlotPlace): Promise<void> {
    while (!slot.dead && !place.container) {
      const [t] = await this.tasks(svc).catch(() => [] as Task[]);
      const cid = t?.Status?.ContainerStatus?.ContainerID;
      if (cid) place.container = cid;
      else if (['failed', 'rejected', 'shutdown', 'orphaned', 'remove', 'complete'].includes(t?.Status?.State ?? '')) return;
      else await new Promise(r => setTimeout(r, 250));
    }
  }

  /**
   * A run no longer has its slot: a slot left without runs is given back to the swarm after a
   * moment (a campaign's next run comes at once), or at once after a cancel.
   */
  private releaseSlot(id: string): void {
    this.slotless.delete(id);
    const cancelled = this.cancels.get(id)?.aborted ?? false;
    this.cancels.delete(id);
    const slot = this.slotOf.get(id);
    if (!slot) return;
    this.slotOf.delete(id);
    slot.runs.delete(id);
    if (slot.holding === id) slot.holding = null;
    slot.movers.delete(id);
    for (const w of [...slot.wake]) w();
    if (slot.runs.size || slot.dead) return;
    if (cancelled) return void retireSlot(slot);
    this.slotIdle(slot);
  }

  /**
   * A slot left with no run: given back to the swarm after a moment (a campaign's next run comes at
   * once); before that, if no run came, it takes a run waiting behind another slot's run under way.
   */
  private slotIdle(slot: HeldSlot): void {
    if (slot.linger) clearTimeout(slot.linger);
    // A run that came meanwhile keeps it, whether or not it has cleared this yet (its choice of
    // slot looks at the slot's node first: a retired slot with a run would fail it as "lost").
    slot.linger = setTimeout(() => void (slot.runs.size || slot.dead || retireSlot(slot)), SLOT_LINGER_MS);
    slot.linger.unref?.();
    const steal = setTimeout(() => void this.steal(slot).catch(() => undefined), STEAL_AFTER_MS);
    steal.unref?.();
  }

  /**
   * Offers free slot `to` to a run waiting behind a run under way on another slot of the same size
   * (the one behind the run that began last: the likeliest to run longest). The run withdraws its
   * command there and is pinned here; if it took its GPUs there meanwhile, it stays, and the slot is
   * free again.
   */
  private async steal(to: HeldSlot): Promise<void> {
    if (to.runs.size || to.dead || !to.at) return;
    // Not to a node being drained, down or gone (its holder is about to go too).
    if (await this.nodeTrouble({ container: '', engine: to.at.engine, node: to.at.node, nodeId: to.at.nodeId })) return;
    if (to.runs.size || to.dead) return;
    const from = [...(slotPools.get(this.where)?.values() ?? [])]
      .filter(s => s !== to && !s.dead && s.gpus === to.gpus && s.holding !== null && [...s.movers.keys()].some(r => r !== s.holding))
      .sort((a, b) => b.busySince - a.busySince);
    for (const s of from)
      for (const [run, offer] of s.movers) {
        if (run === s.holding || [...s.runs][0] === run) continue;
        // Taken before it is offered: a campaign's next run arriving meanwhile lines up behind it.
        to.runs.add(run);
        if (offer(to)) {
          if (to.linger) clearTimeout(to.linger);
          to.linger = null;
          return;
        }
        to.runs.delete(run);
      }
  }

  /** Removes a holder: its container on its node (a job's container outlived its service on 20.10) and its service. */
  async removeHolder(svc: string, place: SlotPlace | null): Promise<void> {
    let at: { engine: DockerRuntime | null; container: string } | null = place?.container ? place : null;
    if (!at) {
      // Placed as it was given up: its container is found through the manager.
      await this.defuse(svc).catch(() => undefined);
      const [t] = await this.tasks(svc).catch(() => [] as Task[]);
      const cid = t?.Status?.ContainerStatus?.ContainerID;
      const node = cid && t?.NodeID ? await this.engineOfNode(t.NodeID).catch(() => null) : null;
      if (cid && node) at = { engine: node.engine, container: cid };
    }
    // Both at once: its slot has no run left, so its reservation may go as its container does.
    const removal = at ? (at.engine ? at.engine.remove(at.container) : super.remove(at.container)).catch(() => undefined) : null;
    await Promise.all([removal, this.removeService(svc)]);
  }

  /**
   * Holders of processes that are gone: removed once no run of theirs is left (a run re-attached by
   * another process still claims its slot). Their own command ends them after HOLDER_IDLE_S too.
   */
  async sweepHolders(): Promise<void> {
    const listServices = this.docker.listServices as (o: object) => Promise<Array<{ ID: string; Spec?: { Labels?: Record<string, string> } }>>;
    const services = await this.call(s => listServices.call(this.docker, { filters: JSON.stringify({ label: [SLOT_LABEL] }), abortSignal: s }));
    const mine = new Set([...(slotPools.get(this.where)?.values() ?? [])].map(x => x.id));
    for (const svc of services) {
      const labels = svc.Spec?.Labels ?? {};
      if (mine.has(labels[SLOT_LABEL] ?? '') || ownerAlive(labels[SLOT_OWNER_LABEL])) continue;
      const [t] = await this.tasks(svc.ID).catch(() => [] as Task[]);
      const cid = t?.Status?.ContainerStatus?.ContainerID;
      let place: SlotPlace | null = null;
      if (t?.Status?.State === 'running' && cid && t.NodeID) {
        const node = await this.engineOfNode(t.NodeID).catch(() => null);
        if (!node) continue;
        place = { nodeId: t.NodeID, node: node.name, engine: node.engine, container: cid, resourceEnv: [] };
        const probe = await (
          node.engine
            ? node.engine.exec(cid, ['python3', '-c', UNCLAIMED, labels[SLOT_LABEL]!], { timeoutMs: 15_000 })
            : super.exec(cid, ['python3', '-c', UNCLAIMED, labels[SLOT_LABEL]!], { timeoutMs: 15_000 })
        ).catch(() => null);
        if (!probe || probe.exitCode !== 0) continue;
      }
      await this.removeHolder(svc.ID, place).catch(() => undefined);
    }
    // File secrets of processes that are gone: a run's service still there (re-attached) keeps its own.
    const listSecrets = this.docker.listSecrets as (o: object) => Promise<Array<{ ID: string; Spec?: { Labels?: Record<string, string> } }>>;
    const secrets = await this.call(s => listSecrets.call(this.docker, { filters: JSON.stringify({ label: [FILES_LABEL] }), abortSignal: s }));
    const orphans = secrets.filter(x => !ownerAlive(x.Spec?.Labels?.[SLOT_OWNER_LABEL]));
    await this.removeSecrets(
      orphans.map(x => ({ id: x.ID })),
      0,
    );
  }

  override async putArchive(id: string, dir: string, tar: Buffer | NodeJS.ReadableStream): Promise<void> {
    const c = this.containers.get(id);
    if (c) return c.engine ? c.engine.putArchive(c.container, dir, tar) : super.putArchive(c.container, dir, tar);
    // Not placed yet: kept until the task has a container.
    this.pendingFiles.set(id, [...(this.pendingFiles.get(id) ?? []), { dir, tar }]);
  }

  /** Archives for a placed run, in order: joined into one extraction when all are in memory. */
  private async putAll(id: string, parts: Array<{ dir: string; tar: Buffer | NodeJS.ReadableStream }>): Promise<void> {
    const inMemory = parts.filter((p): p is { dir: string; tar: Buffer } => Buffer.isBuffer(p.tar));
    if (inMemory.length === parts.length && parts.length > 1) return this.putArchive(id, '/', await joinTars(inMemory));
    for (const p of parts) await this.putArchive(id, p.dir, p.tar);
  }

  private async tasks(id: string): Promise<Task[]> {
    const list = this.docker.listTasks as (o: object) => Promise<Task[]>;
    const all = await this.call(s => list.call(this.docker, { filters: JSON.stringify({ service: [id] }), abortSignal: s }));
    // A run moved to another slot has its service's task from before as history: the newest first, that one left out.
    return all
      .filter(t => !supersededTasks.has(t.ID))
      .sort(
        (a, b) => (b.JobIteration?.Index ?? 0) - (a.JobIteration?.Index ?? 0) || (Date.parse(b.CreatedAt ?? '') || 0) - (Date.parse(a.CreatedAt ?? '') || 0),
      );
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
    if (!p.nodeId) return;
    lostNodes.set(`${this.where}\0${p.nodeId}`, Date.now());
    // This process's slots there are gone with the node: no run is pinned there any more.
    for (const slot of slotPools.get(this.where)?.values() ?? []) if (slot.at?.nodeId === p.nodeId) void retireSlot(slot);
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
    return once(this.nodeEngines, nodeId, () => this.resolveNode(nodeId));
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
  override async start(id: string, signal?: AbortSignal, first?: FirstPhase): Promise<void> {
    const asked = Date.now();
    let seenBy: 'event' | 'poll' = 'poll';
    if (signal) {
      this.cancels.set(id, signal);
      // A cancel removes the run at once, whatever its runner is doing then (ending a stream,
      // writing its record): every run of a cancelled campaign goes together, not one by one.
      signal.addEventListener('abort', () => void this.remove(id).catch(() => undefined), { once: true });
    }
    // The nodes' streams are opened while the run is given its slot: a run pinned at once (a
    // campaign's first runs) has its container seen as it is made, and its files go in before it starts.
    const watching = this.placementWatch();
    // Awaited only after the slot: a failure meanwhile is not an unhandled rejection.
    watching.catch(() => undefined);
    if (this.slotless.has(id)) {
      const taking = this.takeSlot(id, signal, first);
      this.pinning.set(
        id,
        taking.catch(() => undefined),
      );
      await taking
        .catch(async (e: unknown) => {
          const w = await watching.catch(() => null);
          if (w) releaseWatch(this.where, w);
          throw e;
        })
        .finally(() => this.pinning.delete(id));
    }
    const watch = await watching;
    // After its container's event the manager may not yet name the container: asked again soon, a few times.
    let soon = 0;
    let checks = 0;
    try {
      for (;;) {
        if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled while the swarm held the run`, 'cancelled');
        const c = await this.placed(id);
        if (c) {
          const slot = this.slotOf.get(id);
          const bundled = this.bundled.get(id);
          // First in line now means first until it ends: runs only leave a slot's line from its front.
          const goNow = bundled ? bundled.goNow : !!slot && [...slot.runs][0] === id;
          // The run's files, its first phase (a slot's run) and the ready marker, last; a run whose
          // files came as the swarm's secrets has them as its container starts.
          if (!bundled) {
            const parts = await this.runParts(id, slot ? first : undefined, goNow);
            this.pendingFiles.delete(id);
            await this.putAll(id, parts);
          }
          // A run of a slot waits here until the run before it there has handed its GPUs over or
          // died, or moves to a slot that freed first (then it is placed anew, there).
          if (slot) {
            try {
              await this.takeGpus(id, slot, c, signal, first, goNow);
            } catch (e) {
              if (!(e instanceof SlotMove)) throw e;
              await this.moveRun(id, c, slot, e.to, signal);
              continue;
            }
          }
          this.waits.set(id, { seconds: (Date.now() - asked) / 1000, seenBy });
          return;
        }
        // A slot's node drained, down or removed while its run waited to be placed there.
        const slot = this.slotOf.get(id);
        if (slot && ++checks % 4 === 0) {
          const place = await slot.place;
          const why = await this.nodeTrouble({ container: '', engine: place.engine, node: place.node, nodeId: place.nodeId });
          if (why) {
            slot.dead = true;
            throw new RunnerError(`${this.where}: ${why} before the run started`, 'unreachable');
          }
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
  /** Each started run's cancel: a cancelled run's slot left without runs is given back at once (a campaign cancelled). */
  private readonly cancels = new Map<string, AbortSignal>();
  /** Runs whose container launched their first phase itself as it took its GPUs. */
  private readonly firstLaunched = new Set<string>();
  /** When each run's container took its GPUs, on its node's clock (the gate's answer). */
  private readonly heldAt = new Map<string, string>();

  launchedFirst(id: string): boolean {
    return this.firstLaunched.has(id);
  }

  /**
   * Per node this process has slots on: its engine's pushed `die` events of run containers (one
   * stream per node, opened when a slot is placed there, so that it is open before any kill).
   */
  private deathWatch(p: { nodeId: string; engine: DockerRuntime | null }): DeathWatch {
    const key = `${this.where}\0${p.nodeId}`;
    let w = deathWatches.get(key);
    if (w) return w;
    const waiting = new Map<string, () => void>();
    const killing = new Map<string, () => void>();
    const seen = (_svc: string, container: string, action: string, attrs: Record<string, unknown>) => {
      if (action === 'die') waiting.get(container)?.();
      else if (action === 'kill' && String(attrs.signal) === '9') killing.get(container)?.();
    };
    const stop = p.engine ? p.engine.watchTaskContainers(LABEL_RUN, seen, ['die', 'kill']) : super.watchTaskContainers(LABEL_RUN, seen, ['die', 'kill']);
    w = { waiting, killing, stop };
    deathWatches.set(key, w);
    return w;
  }

  /**
   * The death of a placed run's container as its node reports it, and the node's SIGKILL of it (sent,
   * its processes ending as the kernel schedules them); neither resolves if the node cannot say.
   */
  private deathOf(c: Placement): { died: Promise<void>; killed: Promise<void>; forget: () => void } {
    const w = this.deathWatch(c);
    const died = new Promise<void>(resolve => w.waiting.set(c.container, resolve));
    const killed = new Promise<void>(resolve => w.killing.set(c.container, resolve));
    const forget = () => {
      w.waiting.delete(c.container);
      w.killing.delete(c.container);
    };
    return { died, killed, forget };
  }

  /**
   * Asks a run's command that waits for its GPUs to withdraw: `withdrawn` once its container has
   * ended so (nothing of the run launched, its lock let go); `held` when it took its GPUs first;
   * `ended` when its container ended otherwise or is gone; `unanswered` when it still runs and
   * its gate has not answered (it still waits where it is).
   */
  private async withdraw(c: Placement, gate: Promise<ExecOutcome>): Promise<'withdrawn' | 'held' | 'ended' | 'unanswered'> {
    await (c.engine ?? this).signal(c.container, WITHDRAW_SIGNAL).catch(() => undefined);
    let bound: ReturnType<typeof setTimeout> | undefined;
    const out = await Promise.race([gate.catch(() => null), new Promise<undefined>(r => void (bound = setTimeout(() => r(undefined), 10_000)))]);
    clearTimeout(bound);
    if (out && (out.exitCode === 0 || out.exitCode === 3)) return 'held';
    for (let i = 0; i < 100; i++) {
      const st = await this.containerState(c).catch(() => undefined);
      if (st === null) return 'ended';
      if (st && !st.running) return st.exitCode === WITHDRAWN_EXIT ? 'withdrawn' : 'ended';
      await new Promise(r => setTimeout(r, 50));
    }
    return 'unanswered';
  }

  /** Offers each of this manager's idle slots of that size (no run, placed, alive) to the runs waiting behind another. */
  private offerIdleSlots(gpus: number): void {
    for (const s of slotPools.get(this.where)?.values() ?? [])
      if (s.gpus === gpus && !s.runs.size && !s.dead && s.at) void this.steal(s).catch(() => undefined);
  }

  /** A container's state on its node (this runtime's own `inspect` reads a run's service, not a container). */
  private containerState(c: Placement): Promise<ContainerState | null> {
    return c.engine ? c.engine.inspect(c.container) : super.inspect(c.container);
  }

  /** A move offered to run `id` did not happen: its place on `to` is given up, and `to` is free again. */
  private refuseMove(to: HeldSlot, id: string): void {
    to.runs.delete(id);
    for (const w of [...to.wake]) w();
    if (!to.runs.size && !to.dead) this.slotIdle(to);
  }

  /**
   * Run `id` withdrew from slot `from` (its container ended, nothing of it launched) to take free
   * slot `to`: its container there is removed and its task left as history, and its service is
   * pinned to `to`'s node with `to`'s GPUs (a new task, its files as before). `from` keeps its run under way.
   */
  private async moveRun(id: string, c: Placement, from: HeldSlot, to: HeldSlot, signal: AbortSignal | undefined): Promise<void> {
    const since = this.waitingSince.get(id) ?? Date.now();
    remember(withdrawnContainers, c.container);
    // Until it is `to`'s (its slot as a removal sees it), `to` is given back on any failure.
    try {
      for (const t of await this.tasks(id)) remember(supersededTasks, t.ID);
      // Cancelled or removed meanwhile (its removal let go of its slot), or `to` lost: it goes no
      // further. Asked after the last wait: from here to taking `to`, nothing else runs.
      if (signal?.aborted || this.slotOf.get(id) !== from)
        throw new RunnerError(`${this.where}: cancelled while the run moved to a slot that freed first`, 'cancelled');
      if (to.dead) throw this.moveTargetLost(to);
    } catch (e) {
      this.refuseMove(to, id);
      void this.removeWithdrawn(c);
      throw e;
    }
    const w = placementWatches.get(this.where);
    if (w?.seen.get(id)?.container === c.container) w.seen.delete(id);
    this.containers.delete(id);
    this.pullChecked.delete(id);
    from.runs.delete(id);
    for (const wake of [...from.wake]) wake();
    if (!from.runs.size && !from.dead) this.slotIdle(from);
    this.slotOf.set(id, to);
    // Its old container: removed here (its task is left out of what this runtime reads of the service from now on).
    const removal = this.removeWithdrawn(c);
    try {
      if (to.dead) throw this.moveTargetLost(to);
      const place = await to.place;
      this.deathWatch(place);
      const pinning = this.pin(id, to, place, signal, null);
      this.pinning.set(
        id,
        pinning.catch(() => undefined),
      );
      await pinning.finally(() => this.pinning.delete(id));
      this.moves.set(id, { from: c.node, to: place.node, waitedS: (Date.now() - since) / 1000 });
    } finally {
      await removal;
    }
  }

  /** A withdrawn run's container, removed on its node (a few tries: nothing else would remove it). */
  private async removeWithdrawn(c: Placement): Promise<void> {
    for (let i = 0; i < 3; i++)
      try {
        return await (c.engine ? c.engine.remove(c.container) : super.remove(c.container));
      } catch {
        await new Promise(r => setTimeout(r, 500));
      }
  }

  /** What a run that moved is told when the slot it moved to was lost first. */
  private moveTargetLost(to: HeldSlot): RunnerError {
    return new RunnerError(`${this.where}: the GPU slot the run moved to (node ${to.at?.node ?? '?'}) was lost before the run started`, 'unreachable');
  }

  /** Runs moved to a slot that freed first: the node they waited on, the node they went to, and how long they had waited. */
  private readonly moves = new Map<string, { from: string; to: string; waitedS: number }>();
  /** When each run began to wait behind a run under way on its slot. */
  private readonly waitingSince = new Map<string, number>();

  /**
   * Resolves when run `id` is the first of its slot's runs (those before it have died or given
   * their GPUs back), or as `stop` is aborted; rejects on cancel or the slot's loss. `next` is
   * called once, when the run is second in line and the first holds the GPUs.
   */
  private turn(id: string, slot: HeldSlot, signal: AbortSignal | undefined, next: () => void, stop: AbortSignal): Promise<void> {
    let told = false;
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (signal?.aborted) return done(new RunnerError(`${this.where}: cancelled while the run waited for its GPUs`, 'cancelled'));
        if (slot.dead) return done(new RunnerError(`${this.where}: the GPU slot's node ${slot.at?.node ?? ''} was lost`, 'unreachable'));
        if (stop.aborted) return done();
        const [head, second] = slot.runs;
        if (head === id) {
          slot.busySince = Date.now();
          return done();
        }
        if (!told && second === id && slot.holding === head) {
          told = true;
          next();
        }
      };
      const done = (e?: Error) => {
        slot.wake.delete(check);
        signal?.removeEventListener('abort', check);
        stop.removeEventListener('abort', check);
        if (e) reject(e);
        else resolve();
      };
      slot.wake.add(check);
      signal?.addEventListener('abort', check, { once: true });
      stop.addEventListener('abort', check, { once: true });
      check();
    });
  }

  /**
   * Lets the run take its slot's GPUs once the run before it there has died or handed them over,
   * and returns once its container holds them. Its node lost meanwhile (engine gone, drained,
   * removed) is said as such: nothing ran.
   */
  private async takeGpus(
    id: string,
    slot: HeldSlot,
    c: Placement,
    signal: AbortSignal | undefined,
    first: FirstPhase | undefined,
    goNow: boolean,
  ): Promise<void> {
    let failure: unknown = null;
    const ctl = new AbortController();
    const stop = signal ? AbortSignal.any([signal, ctl.signal]) : ctl.signal;
    const engine = c.engine ?? this;
    try {
      // Its command waits for the go before the turn comes; the gate (a process in the container
      // that returns once the GPUs are held) is started now too: neither costs the hand-off. The
      // armed marker is awaited even with the go given (the container runs then: an exec into one
      // that has not started fails), while its command goes on its own.
      for (let i = 0; !(await engine.hasPath(c.container, ARMED)); i++) {
        if (signal?.aborted) throw new RunnerError(`${this.where}: cancelled`, 'cancelled');
        if (i >= 600) throw new RunnerError(`${this.where}: the run's command did not get ready within 30 s`, 'docker');
        // Ended before it was ready (its files could not be unpacked, say): said now, with what it wrote, not after 30 s.
        if (i > 0 && i % 20 === 0) {
          const st = await this.containerState(c).catch(() => null);
          if (st && !st.running && st.status === 'exited') {
            const said = await engine.lastOutput(c.container).catch(() => '');
            throw new RunnerError(`${this.where}: the run's command ended (exit ${st.exitCode}) before it was ready${said ? `: ${said}` : ''}`, 'docker');
          }
        }
        await new Promise(r => setTimeout(r, 50));
      }
      const gate = this.exec(id, ['python3', '-c', GATE, ...(first ? [first.marker] : [])], { signal: stop });
      gate.catch(() => undefined);
      // The run next in line waits on the slot's lock in its container: the run before hands its
      // GPUs over there as its last process goes, and this one may hold them before its turn here.
      const held = new AbortController();
      void gate.then(
        () => held.abort(),
        () => held.abort(),
      );
      const tell = () => void engine.signal(c.container, NEXT_SIGNAL).catch(() => undefined);
      // Behind a run under way, it may move to a slot that frees first: its files came with its
      // container (the swarm's secrets), so a container made for it on that slot's node has them too.
      if (!this.waitingSince.has(id)) this.waitingSince.set(id, Date.now());
      let movable = this.bundled.has(id);
      for (;;) {
        let moveTo: HeldSlot | null = null;
        const moving = new AbortController();
        if (movable) {
          slot.movers.set(id, to => {
            if (moveTo || held.signal.aborted || [...slot.runs][0] === id) return false;
            moveTo = to;
            moving.abort();
            return true;
          });
          // A slot that freed before this run was ready to move is offered now.
          this.offerIdleSlots(slot.gpus);
        }
        try {
          await this.turn(id, slot, signal, tell, AbortSignal.any([held.signal, moving.signal]));
        } catch (e) {
          ctl.abort();
          if (moveTo) this.refuseMove(moveTo, id);
          throw e;
        } finally {
          slot.movers.delete(id);
        }
        const to = moveTo as HeldSlot | null;
        if (!to) break;
        const outcome = await this.withdraw(c, gate).catch(() => 'unanswered' as const);
        if (outcome === 'withdrawn') throw new SlotMove(to);
        this.refuseMove(to, id);
        // It took its GPUs here before the withdrawal reached it, or its container ended: the gate says which.
        if (outcome !== 'unanswered') break;
        // Neither: it still waits here, behind the run ahead; it is not offered a move again.
        movable = false;
      }
      if (!held.signal.aborted && !goNow) await engine.signal(c.container, GO_SIGNAL);
      const out = await gate;
      if (out.exitCode === 0 || (first && out.exitCode === 3)) {
        if (out.exitCode === 0 && first) this.firstLaunched.add(id);
        const at = Number(out.stdout.toString().trim());
        if (Number.isFinite(at) && at > 0) this.heldAt.set(id, new Date(at * 1000).toISOString());
        slot.holding = id;
        slot.busySince = Date.now();
        for (const w of [...slot.wake]) w();
        return;
      }
      failure = new RunnerError(`${this.where}: the run's container ended while it waited for its GPUs (exit code ${out.exitCode})`, 'docker');
    } catch (e) {
      if (signal?.aborted || e instanceof SlotMove) throw e;
      failure = e;
    }
    const answers = await (c.engine ? c.engine.ping() : this.ping()).then(
      () => true,
      () => false,
    );
    const why = answers ? await this.nodeTrouble(c) : `node ${c.node} (its engine does not answer)`;
    if (why) {
      this.markLost(c);
      throw new RunnerError(`${this.where}: ${why} before the run started`, 'unreachable');
    }
    throw failure;
  }

  /** When the run's container took its slot's GPUs, on its node's clock (ISO), or null. */
  gpusHeldAt(id: string): string | null {
    return this.heldAt.get(id) ?? null;
  }

  /**
   * Hands a finished run's GPUs to the next run of its slot now: its container's first process
   * kills every other process of it, waits until none is left (a GPU is free once no process has
   * it open), writes the hand-off token and gives back the slot's lock, which the next run waits
   * on. Its container is removed after, off the next run's path. Returns when the GPUs were free
   * (the node's clock, ISO), or null when they are left to the container's death (not a slot's
   * run, no run waiting on the slot, cancelled, its container gone, or a process that would not
   * die within 30 s).
   */
  async giveBack(id: string): Promise<string | null> {
    const c = this.containers.get(id);
    const slot = this.slotOf.get(id);
    // Only for a run that waits on the slot: a lone run's end would wait for nothing.
    if (!c || !slot || slot.runs.size < 2 || !this.heldAt.has(id) || this.cancels.get(id)?.aborted) return null;
    const engine = c.engine ?? this;
    try {
      // The helper waits up to 30 s for the run's processes to die; a node that stops answering ends the wait too.
      const until = Date.now() + 35_000;
      await engine.signal(c.container, GIVE_BACK_SIGNAL);
      let at: number | null;
      while ((at = await engine.pathTime(c.container, FREED)) === null) {
        if (Date.now() > until) return null;
        await new Promise(r => setTimeout(r, 10));
      }
      this.releaseSlot(id);
      return new Date(at).toISOString();
    } catch {
      return null;
    }
  }

  async waitOf(id: string): Promise<{ seconds: number; seenBy: 'event' | 'poll'; moved?: { from: string; to: string; waitedS: number } } | null> {
    const w = this.waits.get(id);
    if (!w) return null;
    const moved = this.moves.get(id);
    return moved ? { ...w, moved } : w;
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
    w = { users: 1, waiting: new Map(), seen: new Map(), stops: [], linger: null };
    placementWatches.set(this.where, w);
    const watch = w;
    const wake = (service: string, p: Placement) => {
      if (withdrawnContainers.has(p.container)) return;
      watch.seen.delete(service);
      watch.seen.set(service, p);
      if (watch.seen.size > SEEN_KEPT) watch.seen.delete(watch.seen.keys().next().value!);
      for (const r of watch.waiting.get(service) ?? []) r(p);
    };
    // A minute back (nodes' clocks may differ from this one): a run pinned while its node's stream
    // was still being opened is not missed. A service has one container only, so older events are harmless.
    const since = Date.now() - 60_000;
    const listNodes = this.docker.listNodes as (o: object) => Promise<Array<{ ID: string }>>;
    const nodes = await this.call(s => listNodes.call(this.docker, { abortSignal: s })).catch(() => [] as Array<{ ID: string }>);
    for (const n of nodes) {
      const node = await this.engineOfNode(n.ID).catch(() => null);
      if (!node) continue; // not reachable from here: its placements are seen by the poll
      const seen = (service: string, container: string) => wake(service, { container, engine: node.engine, node: node.name, nodeId: n.ID });
      watch.stops.push(
        node.engine ? node.engine.watchTaskContainers(LABEL_RUN, seen, undefined, since) : super.watchTaskContainers(LABEL_RUN, seen, undefined, since),
      );
    }
    return watch;
  }

  /**
   * Whether the task's container holds its GPUs (made after the ready marker, itself put after the
   * run's files): a process killed before then left a run that never started.
   */
  async filesIn(id: string): Promise<boolean> {
    const out = await this.exec(id, ['test', '-e', HELD], { timeoutMs: 15_000 });
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
  private async nodeTrouble(p: Placement, signal?: AbortSignal): Promise<string | null> {
    if (!p.nodeId) return null;
    const node = this.docker.getNode(p.nodeId);
    const info = await this.call(
      s =>
        (node.inspect as (o: object) => Promise<{ Status?: { State?: string; Message?: string }; Spec?: { Availability?: string } }>).call(node, {
          abortSignal: s,
        }),
      signal,
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
  override remove(id: string): Promise<void> {
    // A failed removal may be asked again; a done one is not done twice.
    return once(this.removals, id, () => this.removeNow(id));
  }

  /** Removals under way or done, by run: a cancel starts one, and the runner's own end awaits the same. */
  private readonly removals = new Map<string, Promise<void>>();

  private async removeNow(id: string): Promise<void> {
    // A run being pinned as it is removed (a cancel): the pin ends first (it lets nothing run once
    // cancelled), so that the service is not let run behind the removal's back.
    const pin = this.pinning.get(id);
    const pinEnded = pin ? await Promise.race([pin.then(() => true), new Promise<boolean>(r => setTimeout(() => r(false), PIN_WAIT_MS).unref?.())]) : true;
    // A pin still under way (a manager that does not answer) may yet make secrets: they go when it ends.
    if (!pinEnded) void pin!.then(() => this.dropFileSecrets(id)).catch(() => undefined);
    const c = this.containers.get(id) ?? (await this.placed(id).catch(() => null));
    this.containers.delete(id);
    // Removed at once (forced: killed, then removed, in one call), its service beside it: a run's
    // service reserves nothing (its slot's holder does), and the container does not outlive it as
    // a job's did on 20.10 when only the service went, since it is being removed here. The next
    // run of its slot may take the GPUs once every process of this one is gone: as its node's
    // engine says it died (pushed), or as the removal returns, whichever comes first.
    const removal = c ? (c.engine ? c.engine.remove(c.container) : super.remove(c.container)).catch(() => undefined) : null;
    const service = removal
      ? this.removeService(id).then(
          () => null,
          (e: unknown) => e,
        )
      : null;
    const slot = this.slotOf.get(id);
    if (c && removal && slot) {
      const death = this.deathOf(c);
      // A slot whose runs are all cancelled goes back once the node has sent each its SIGKILL (its
      // `kill` event: the kernel ends the processes as it schedules them, and the holder's own
      // death takes longer), not after the engine has reported the death: a cancelled campaign
      // leaves nothing about 0.5 s sooner. A run that waits on the slot gets it only after the death.
      // Asked as the kill comes, not now: the runs' cancels are told one after the other.
      const allCancelled = death.killed.then(() => ([...slot.runs].every(r => this.cancels.get(r)?.aborted) ? undefined : new Promise<void>(() => {})));
      await Promise.race([death.died, removal, allCancelled]);
      death.forget();
    }
    this.releaseSlot(id);
    const pinned = this.pinned.delete(id);
    this.pendingFiles.delete(id);
    this.waits.delete(id);
    this.moves.delete(id);
    this.waitingSince.delete(id);
    this.slotEnv.delete(id);
    this.firstLaunched.delete(id);
    this.heldAt.delete(id);
    this.pullChecked.delete(id);
    this.preparingSince.delete(id);
    if (removal && service) {
      const [, failed] = await Promise.all([removal, service]);
      if (failed) throw failed;
      return this.dropFileSecrets(id);
    }
    // Its tasks, asked before the service goes (the manager lists a service's tasks only while it exists).
    const tasks = pinned ? (await this.tasks(id).catch(() => [] as Task[])).map(t => t.ID) : [];
    await this.defuse(id).catch(() => undefined);
    await this.removeService(id);
    if (tasks.length) await this.lastTaskGone(tasks);
    await this.dropFileSecrets(id);
  }

  /**
   * A run let run but without a container as it was removed: its task may still be made into one
   * on its node. Until the task has ended (at most PIN_WAIT_MS), a container it gets is removed
   * there, and the secrets its node mounts for it stay until then.
   */
  private async lastTaskGone(taskIds: string[]): Promise<void> {
    const list = this.docker.listTasks as (o: object) => Promise<Task[]>;
    for (const until = Date.now() + PIN_WAIT_MS; Date.now() < until;) {
      const all = await this.call(s => list.call(this.docker, { filters: JSON.stringify({ id: taskIds }), abortSignal: s })).catch(() => null);
      if (!all) return;
      const live = all.filter(t => !TASK_ENDED.includes(t.Status?.State ?? ''));
      if (!live.length) return;
      for (const t of live) {
        const cid = t.Status?.ContainerStatus?.ContainerID;
        const node = cid && t.NodeID ? await this.engineOfNode(t.NodeID).catch(() => null) : null;
        if (cid && node) await (node.engine ? node.engine.remove(cid) : super.remove(cid)).catch(() => undefined);
      }
      await new Promise(r => setTimeout(r, 100));
    }
  }

  private async removeService(id: string): Promise<void> {
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
    // Holders' containers left on a node that was lost and came back, as for runs.
    const holders = await this.call(s => listServices.call(this.docker, { filters: JSON.stringify({ label: [SLOT_LABEL] }), abortSignal: s })).catch(
      () => null,
    );
    if (holders) await this.sweep(SLOT_LABEL, new Set(holders.map(x => x.ID))).catch(() => undefined);
    const out: LabelledContainer[] = [];
    for (const svc of services) {
      const [t] = await this.tasks(svc.ID).catch(() => [] as Task[]);
      const state = t?.Status?.State ?? 'pending';
      // Its latest task withdrew to move, and the process that was moving it ended before the new pin.
      const withdrawn = TASK_ENDED.includes(state) && t?.Status?.ContainerStatus?.ExitCode === WITHDRAWN_EXIT;
      out.push({ id: svc.ID, labels: svc.Spec?.Labels ?? {}, state: withdrawn ? WITHDRAWN_STATE : state });
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
/** Placements a watch keeps for waits that begin after the event: more than a process's runs under way. */
const SEEN_KEPT = 512;

/** Resolves with where service `id`'s container is, as a watched node creates it; null after `ms`, or at once on cancel. */
function placedOrPoll(w: PlacementWatch, id: string, signal: AbortSignal | undefined, ms: number): Promise<Placement | null> {
  const seen = w.seen.get(id);
  if (seen) return Promise.resolve(seen);
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

/** Per manager: the timer that renews the holders of this process's slots with runs, while it has slots. */
const renewals = new Map<string, ReturnType<typeof setInterval>>();
function renewHolders(where: string): void {
  if (renewals.has(where)) return;
  const timer = setInterval(() => {
    const pool = slotPools.get(where);
    if (!pool?.size) {
      clearInterval(timer);
      renewals.delete(where);
      return;
    }
    for (const slot of pool.values())
      if (slot.runs.size && slot.at?.container) {
        const at = slot.at;
        void (at.engine ? at.engine.signal(at.container, GO_SIGNAL) : slot.owner.signal(at.container, GO_SIGNAL)).catch(() => undefined);
      }
  }, RENEW_MS);
  timer.unref?.();
  renewals.set(where, timer);
}

/** Slots being given back: a command's end waits for them (its holders gone before it exits). */
const retiring = new Set<Promise<void>>();

/** Gives a slot back to the swarm: no run is given it any more, and its holder goes. */
function retireSlot(slot: HeldSlot): Promise<void> {
  const p = retire(slot).finally(() => retiring.delete(p));
  retiring.add(p);
  return p;
}

async function retire(slot: HeldSlot): Promise<void> {
  if (slot.linger) clearTimeout(slot.linger);
  slot.linger = null;
  slot.dead = true;
  for (const w of [...slot.wake]) w();
  const pool = slotPools.get(slot.owner.where);
  if (pool?.get(slot.id) === slot) pool.delete(slot.id);
  const node = slot.at?.nodeId;
  if (node && ![...(pool?.values() ?? [])].some(x => x.at?.nodeId === node)) {
    const key = `${slot.owner.where}\0${node}`;
    deathWatches.get(key)?.stop();
    deathWatches.delete(key);
  }
  const svc = await slot.service.catch(() => null);
  if (!svc) return;
  await slot.owner.removeHolder(svc, slot.at).catch(() => undefined);
}

/**
 * Gives back every slot of this process that no run has (a command's end, the extension's
 * deactivation), and removes holders of processes that are gone once nothing claims them.
 */
export async function releaseSwarmSlots(): Promise<void> {
  const owners = new Map<string, SwarmRuntime>();
  const idle: HeldSlot[] = [];
  for (const pool of slotPools.values())
    for (const slot of pool.values()) {
      owners.set(slot.owner.where, slot.owner);
      if (!slot.runs.size) idle.push(slot);
    }
  await Promise.all([...idle.map(retireSlot), ...retiring]);
  for (const rt of owners.values()) await rt.sweepHolders().catch(() => undefined);
}
