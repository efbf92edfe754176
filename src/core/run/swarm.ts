// A swarm as `swarm status` and `swarm check` show it: the shapes the runner fills and the text
// the CLI prints (node names and labels are data: printed as they are, one per cell).

export interface SwarmRunOnNode {
  runId: string;
  commit: string;
  role: string;
  /** The task's state (running, starting …). */
  state: string;
}

export interface SwarmNodeStatus {
  id: string;
  name: string;
  role: 'manager' | 'worker';
  leader: boolean;
  /** ready, down, unknown, disconnected. */
  state: string;
  /** active, pause, drain. */
  availability: string;
  address: string | null;
  /** The node's engine address (its `bench-triage.engine` label). */
  engine: string | null;
  gpusAdvertised: number;
  /** GPUs that placed, unfinished tasks reserve. */
  gpusReserved: number;
  runs: SwarmRunOnNode[];
}

export interface SwarmCheckFinding {
  node: string;
  ok: boolean;
  what: string;
  detail: string;
}

/** A control character in data would move the cursor: shown as `?`. */
const cell = (s: string) => s.replace(/[\0-\x1f\x7f]/g, '?');

export function formatSwarmStatus(nodes: readonly SwarmNodeStatus[]): string {
  const rows = nodes.map(n => [
    cell(n.name) + (n.leader ? ' (leader)' : ''),
    n.role,
    cell(n.state),
    cell(n.availability),
    `${n.gpusReserved}/${n.gpusAdvertised}`,
    String(n.runs.length),
    cell(n.engine ?? (n.role === 'manager' ? '(the manager)' : '—')),
  ]);
  const head = ['NODE', 'ROLE', 'STATE', 'AVAILABILITY', 'GPUS USED/ADVERTISED', 'RUNS', 'ENGINE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map(r => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const out = [line(head), ...rows.map(line)];
  for (const n of nodes)
    for (const r of n.runs) out.push(`  ${cell(n.name)}: run ${cell(r.runId)} — ${cell(r.commit.slice(0, 12))} ${cell(r.role)} (${cell(r.state)})`);
  const adv = nodes.reduce((a, n) => a + n.gpusAdvertised, 0),
    used = nodes.reduce((a, n) => a + n.gpusReserved, 0);
  out.push(`${nodes.length} node(s), ${nodes.filter(n => n.state === 'ready').length} ready; GPUs ${used} of ${adv} reserved`);
  return out.join('\n') + '\n';
}

export function formatSwarmCheck(findings: readonly SwarmCheckFinding[]): string {
  const out = findings.map(f => `${f.ok ? 'ok  ' : 'MISS'} ${cell(f.node)}: ${f.what}: ${cell(f.detail)}`);
  const missing = findings.filter(f => !f.ok).length;
  out.push(missing ? `${missing} thing(s) missing` : 'every node has what runs need');
  return out.join('\n') + '\n';
}

/** Where the NVIDIA container toolkit reads its settings (a node whose toolkit reads `$XDG_CONFIG_HOME` has it elsewhere). */
export const NVIDIA_CONFIG = '/etc/nvidia-container-runtime/config.toml';

/**
 * What a node's `config.toml` says of `swarm-resource`, the variable through which the NVIDIA
 * runtime learns which GPUs the swarm reserved for a task (`DOCKER_RESOURCE_<KIND>`): ok, or what
 * is wrong and the line to write. Only top-level keys count (before the first `[table]`).
 */
export function swarmResourceFinding(toml: string, kind: string): { ok: boolean; detail: string } {
  const want = `DOCKER_RESOURCE_${kind.toUpperCase()}`;
  const fix = `set swarm-resource = "${want}" at the top of ${NVIDIA_CONFIG}`;
  let commented: number | null = null;
  const lines = toml.split(/\r?\n/).slice(0, 10_000);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (l.startsWith('[')) break;
    if (/^#\s*swarm-resource\s*=/.test(l)) commented ??= i + 1;
    const m = /^swarm-resource\s*=\s*(?:"([^"]*)"|'([^']*)')\s*(?:#.*)?$/.exec(l);
    if (/^swarm-resource\s*=/.test(l) && !m) return { ok: false, detail: `line ${i + 1}: swarm-resource is not a quoted string; ${fix}` };
    if (!m) continue;
    const value = m[1] ?? m[2];
    if (
      value
        .split(',')
        .map(v => v.trim())
        .includes(want)
    )
      return { ok: true, detail: `swarm-resource = "${value}" (line ${i + 1})` };
    return {
      ok: false,
      detail: `line ${i + 1}: swarm-resource = "${value.slice(0, 80)}", which is not ${want}: the runtime would not see the GPUs the swarm reserved; ${fix}`,
    };
  }
  return {
    ok: false,
    detail: `${commented ? `swarm-resource is commented out (line ${commented})` : 'no swarm-resource'}: the runtime would not see the GPUs the swarm reserved (every task would get none, or all); ${fix}`,
  };
}
