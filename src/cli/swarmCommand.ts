import { swarmCheck, swarmStatus } from '../app/swarm';
import { formatSwarmCheck, formatSwarmStatus } from '../core/run/swarm';
import type { HostConfig } from '../core/run/hosts';

/** `swarm status` (exit 0) and `swarm check` (exit 1 when a node lacks something runs need). */
export async function swarmCommand(
  sub: 'status' | 'check',
  host: HostConfig,
  json: boolean,
  out: (s: string) => void,
  err: (s: string) => void,
  nvidiaConfig?: string,
): Promise<number> {
  try {
    if (sub === 'status') {
      const nodes = await swarmStatus(host);
      out(json ? JSON.stringify({ nodes }, null, 2) : formatSwarmStatus(nodes).trimEnd());
      return 0;
    }
    const findings = await swarmCheck(host, nvidiaConfig);
    out(json ? JSON.stringify({ findings }, null, 2) : formatSwarmCheck(findings).trimEnd());
    return findings.some(f => !f.ok) ? 1 : 0;
  } catch (e) {
    err(`swarm ${sub}: ${(e as Error).message}\n`);
    return 1;
  }
}
