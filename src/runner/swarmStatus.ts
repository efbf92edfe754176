import { DockerRuntime } from './dockerRuntime';
import { ENGINE_LABEL, GPU_RESOURCE } from './swarmRuntime';
import { LABEL } from './execute';
import { hostAddressProblem, type HostConfig } from '../core/run/hosts';
import { NVIDIA_CONFIG, swarmResourceFinding, type SwarmNodeStatus, type SwarmCheckFinding } from '../core/run/swarm';

interface NodeInfo {
  ID: string;
  Spec?: { Role?: string; Availability?: string; Labels?: Record<string, string> };
  Description?: {
    Hostname?: string;
    Resources?: { GenericResources?: Array<{ NamedResourceSpec?: { Kind?: string }; DiscreteResourceSpec?: { Kind?: string; Value?: number } }> };
  };
  Status?: { State?: string; Addr?: string; Message?: string };
  ManagerStatus?: { Leader?: boolean; Reachability?: string };
}

interface TaskInfo {
  ID: string;
  NodeID?: string;
  ServiceID?: string;
  Status?: { State?: string };
  DesiredState?: string;
  Spec?: {
    ContainerSpec?: { Labels?: Record<string, string> };
    Resources?: { Reservations?: { GenericResources?: Array<{ DiscreteResourceSpec?: { Kind?: string; Value?: number } }> } };
  };
}

/** Tasks that hold their reservation: placed and not yet ended. */
const HOLDING = new Set(['assigned', 'accepted', 'preparing', 'ready', 'starting', 'running']);

/** The manager's view of the swarm for `swarm status`: each node with its GPUs advertised and reserved and the runs on it. */
export class SwarmInspector extends DockerRuntime {
  constructor(host: HostConfig) {
    super({ ...host, kind: 'docker' });
  }

  async status(): Promise<SwarmNodeStatus[]> {
    const nodes = await this.call(s => (this.docker.listNodes as (o: object) => Promise<NodeInfo[]>).call(this.docker, { abortSignal: s }));
    const tasks = await this.call(s => (this.docker.listTasks as (o: object) => Promise<TaskInfo[]>).call(this.docker, { abortSignal: s }));
    return nodes
      .map(n => {
        const mine = tasks.filter(t => t.NodeID === n.ID && HOLDING.has(t.Status?.State ?? '') && t.DesiredState !== 'shutdown');
        const reserved = mine.reduce(
          (sum, t) =>
            sum +
            (t.Spec?.Resources?.Reservations?.GenericResources ?? [])
              .filter(g => g.DiscreteResourceSpec?.Kind === GPU_RESOURCE)
              .reduce((a, g) => a + (g.DiscreteResourceSpec?.Value ?? 0), 0),
          0,
        );
        // Runs only (a GPU slot's holder holds the reservation, and is not a run), each with its task's state.
        const runs = mine
          .filter(t => t.Spec?.ContainerSpec?.Labels?.[LABEL.runId])
          .map(t => {
            const l = t.Spec!.ContainerSpec!.Labels!;
            return { runId: l[LABEL.runId], commit: l[LABEL.commit] ?? '', role: l[LABEL.role] ?? '', state: t.Status?.State ?? '' };
          });
        return {
          id: n.ID,
          name: n.Description?.Hostname ?? n.ID.slice(0, 12),
          role: n.Spec?.Role === 'manager' ? 'manager' : 'worker',
          leader: !!n.ManagerStatus?.Leader,
          state: n.Status?.State ?? 'unknown',
          availability: n.Spec?.Availability ?? 'unknown',
          address: n.Status?.Addr ?? null,
          engine: n.Spec?.Labels?.[ENGINE_LABEL] ?? null,
          gpusAdvertised: gpusOf(n),
          gpusReserved: reserved,
          runs,
        } satisfies SwarmNodeStatus;
      })
      .sort((a, b) => Number(b.role === 'manager') - Number(a.role === 'manager') || a.name.localeCompare(b.name));
  }

  /**
   * What the set-up asks of each node, checked through the engines: GPUs advertised as generic
   * resources, an engine address the runner can reach (the manager's own node needs none), the
   * NVIDIA runtime present and the default (swarm services cannot choose a runtime). Whether the
   * runtime's config maps the reservation (`swarm-resource`) is read from the node's own file.
   */
  async check(configFile = NVIDIA_CONFIG): Promise<SwarmCheckFinding[]> {
    const own = await this.call(s => (this.docker.info as (o: object) => Promise<{ Swarm?: { NodeID?: string } }>).call(this.docker, { abortSignal: s }));
    const out: SwarmCheckFinding[] = [];
    for (const n of await this.status()) {
      const say = (ok: boolean, what: string, detail: string) => out.push({ node: n.name, ok, what, detail });
      if (n.state !== 'ready') {
        say(false, 'state', `the node is ${n.state}: the swarm places nothing on it`);
        continue;
      }
      if (n.availability !== 'active') say(n.role === 'manager', 'availability', `${n.availability}: the swarm places no new runs on it`);
      if (n.role === 'worker' || n.gpusAdvertised)
        say(
          n.gpusAdvertised > 0,
          'GPUs',
          n.gpusAdvertised
            ? `${n.gpusAdvertised} ${GPU_RESOURCE} advertised`
            : `no ${GPU_RESOURCE} generic resources: add "node-generic-resources": ["${GPU_RESOURCE}=<GPU uuid>", …] to the node's /etc/docker/daemon.json and restart its engine`,
        );
      const self = n.id === own.Swarm?.NodeID;
      let engine: DockerRuntime | null = null;
      if (!self && !n.engine)
        say(
          false,
          'engine address',
          `no ${ENGINE_LABEL} label: runs placed here cannot be driven (docker node update --label-add ${ENGINE_LABEL}=tcp://ADDRESS:2376 ${n.name})`,
        );
      else if (!self) {
        const problem = hostAddressProblem(n.engine!);
        if (problem) say(false, 'engine address', `${ENGINE_LABEL}: ${problem}`);
        else engine = new DockerRuntime({ ...this.host, kind: 'docker', label: `${this.host.label} node ${n.name}`, docker: n.engine! });
      }
      if (!self && !engine) continue;
      let facts: { runtimes: string[]; defaultRuntime: string } | null = null;
      try {
        const info = await (engine ?? this).facts();
        facts = { runtimes: info.runtimes, defaultRuntime: info.defaultRuntime ?? '' };
        if (engine) say(true, 'engine address', `${n.engine} answers`);
      } catch (e) {
        say(false, 'engine address', `${n.engine ?? 'the manager'}: ${(e as Error).message}`);
      }
      if (!facts || !(n.role === 'worker' || n.gpusAdvertised)) continue;
      if (!facts.runtimes.includes('nvidia'))
        say(false, 'NVIDIA runtime', `not installed (runtimes: ${facts.runtimes.join(', ') || 'none'}): install nvidia-container-toolkit on the node`);
      else if (facts.defaultRuntime !== 'nvidia')
        say(false, 'NVIDIA runtime', `present but not the default (${facts.defaultRuntime}): set "default-runtime": "nvidia" in the node's daemon.json`);
      else say(true, 'NVIDIA runtime', 'present and the default');
      // The toolkit's config, read on the node through its engine (a container created, never started).
      const rt = engine ?? this;
      try {
        const toml = await rt.readHostFile(configFile);
        if (toml === null) say(false, 'swarm-resource', `no ${configFile} on the node: install nvidia-container-toolkit, then set swarm-resource in it`);
        else {
          const f = swarmResourceFinding(toml, GPU_RESOURCE);
          say(f.ok, 'swarm-resource', f.detail);
        }
      } catch (e) {
        say(false, 'swarm-resource', `${configFile} could not be read: ${(e as Error).message}`);
      }
    }
    return out;
  }
}

function gpusOf(n: NodeInfo): number {
  let k = 0;
  for (const g of n.Description?.Resources?.GenericResources ?? []) {
    if (g.NamedResourceSpec?.Kind === GPU_RESOURCE) k++;
    else if (g.DiscreteResourceSpec?.Kind === GPU_RESOURCE) k += g.DiscreteResourceSpec.Value ?? 0;
  }
  return k;
}
