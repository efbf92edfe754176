// The swarm's own view for the front ends (`swarm status`, `swarm check`).
import { SwarmInspector } from '../runner/swarmStatus';
import { hostKind, type HostConfig } from '../core/run/hosts';
import type { SwarmCheckFinding, SwarmNodeStatus } from '../core/run/swarm';

function inspector(host: HostConfig): SwarmInspector {
  if (hostKind(host) !== 'swarm') throw new Error(`${host.label} is not a swarm manager (use a swarm+… address)`);
  return new SwarmInspector(host);
}

/** The nodes, their state and availability, GPUs advertised and reserved, and the runs on each. */
export const swarmStatus = (host: HostConfig): Promise<SwarmNodeStatus[]> => inspector(host).status();

/** What each node lacks of the set-up runs need (generic resources, an engine address, the NVIDIA runtime and its swarm-resource). */
export const swarmCheck = (host: HostConfig, nvidiaConfig?: string): Promise<SwarmCheckFinding[]> => inspector(host).check(nvidiaConfig);
