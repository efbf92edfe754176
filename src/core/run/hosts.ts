// Hosts as configured, and the checks of an address that need no engine: what settings, the CLI
// and the runner's preflight share.

/** `docker`: one engine, runs as containers. `swarm`: a swarm manager, runs as replicated-job services that reserve GPUs. */
export const HOST_KINDS = ['docker', 'swarm'] as const;
export type HostKind = (typeof HOST_KINDS)[number];

/** A Docker host as configured (settings or CLI). */
export interface HostConfig {
  /** Default `docker`: one Docker engine. */
  kind?: HostKind;
  label: string;
  /** `unix:///path`, `tcp://host:port`, `ssh://user@host[:port]`; empty = `DOCKER_HOST` or the local socket. */
  docker: string;
  gpus: number;
  /** Concurrent runs; default: one per GPU (one on a GPU-less host). */
  maxParallel?: number;
  tls?: { ca: string; cert: string; key: string };
  ssh?: { identityFile?: string; knownHostsFile?: string };
  /**
   * A swarm's registry (`host[:port][/path]`): builds push there, runs name its images by digest,
   * and a node without an image pulls it. Used by swarm hosts only: a plain engine runs what it has.
   */
  registry?: string;
}

export const hostKind = (h: HostConfig): HostKind => h.kind ?? 'docker';

/**
 * Runs a host takes at once. A swarm takes three times its GPUs: per GPU one run on it, one ready
 * behind it, and one more that is made ready as soon as the one before takes the GPU, rather than
 * after the run before that has ended and been written down (the swarm, not this count, keeps each
 * node within its GPUs).
 */
export function runSlots(h: HostConfig): number {
  if (h.gpus <= 0) return Math.max(1, h.maxParallel ?? 1);
  return hostKind(h) === 'swarm' ? (h.maxParallel ?? 3 * h.gpus) : Math.min(h.gpus, h.maxParallel ?? h.gpus);
}

/**
 * Why a plain engine cannot give a run the GPUs its host promises (null when it can): the one
 * message of the runner's preflight and of the check the editor makes before the first click.
 * On a swarm the node's runtime maps the reserved generic resources, so the manager's says nothing.
 */
export function gpuRefusal(host: HostConfig, runtimes: readonly string[], where: string): string | null {
  if (hostKind(host) === 'swarm' || host.gpus <= 0 || runtimes.includes('nvidia')) return null;
  return `${where} has no NVIDIA container runtime, so it cannot give the run GPUs (runtimes: ${runtimes.join(', ') || 'none'}); install nvidia-container-toolkit, or set gpus: 0 for a CPU-only test host`;
}

/**
 * Why a host address can't be used, or null: the scheme, the port's range, a host name where one
 * is needed, and no password (SSH hosts authenticate by key or agent; a password in an address
 * would be printed and stored). The address in the message has its password masked.
 */
export function hostAddressProblem(raw: string): string | null {
  const { docker } = splitHostUrl(raw);
  const shown = maskHostPassword(raw);
  if (/[\s\0-\x1f]/.test(raw)) return `"${shown.replace(/[\0-\x1f]/g, '?')}" holds spaces or control characters`;
  if (docker.startsWith('unix://')) return docker.length > 'unix://'.length ? null : `"${shown}" names no socket`;
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(docker);
  if (!m) return `"${shown}" is not a Docker host (use unix:///path, tcp://host:port or ssh://user@host)`;
  const scheme = m[1].toLowerCase();
  if (!['tcp', 'ssh', 'http', 'https'].includes(scheme)) return `"${shown}": unsupported scheme ${scheme}:// (use unix://, tcp:// or ssh://)`;
  // user:password@ before the host, whatever characters the password holds (a URL parser can take `#` for a fragment).
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/\s]*@/i.test(docker))
    return `"${shown}": a password in the address is not used and would be shown and stored; SSH hosts authenticate by key or agent (--ssh-key, ssh-agent)`;
  const port = /:(\d+)(?:\/|$)/.exec(docker.slice(m[0].length).replace(/^[^@]*@/, ''));
  if (port && (Number(port[1]) < 1 || Number(port[1]) > 65535)) return `"${shown}": port ${port[1]} is out of range (1–65535)`;
  let url: URL;
  try {
    url = new URL(docker);
  } catch {
    return `"${shown}" is not a valid address`;
  }
  if (!url.hostname) return `"${shown}" names no host`;
  if (url.password)
    return `"${shown}": a password in the address is not used and would be shown and stored; SSH hosts authenticate by key or agent (--ssh-key, ssh-agent)`;
  return null;
}

/** `ssh://user:secret@h` → `ssh://user:***@h`: for any message or record that names an address. */
export function maskHostPassword(raw: string): string {
  return raw.replace(/^((?:swarm\+)?[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^/\s]*@/i, '$1:***@');
}

/**
 * A host address with its kind: `swarm+unix:///var/run/docker.sock`, `swarm+ssh://user@h100`,
 * `swarm+tcp://manager:2376` or `swarm://manager:2376` (TCP) name a swarm manager; any other
 * address is a plain Docker engine.
 */
export function splitHostUrl(url: string): { kind: HostKind; docker: string } {
  const m = /^swarm(?:\+(unix|tcp|ssh))?:\/\/(.*)$/.exec(url);
  if (!m) return { kind: 'docker', docker: url };
  return { kind: 'swarm', docker: `${m[1] ?? 'tcp'}://${m[2]}` };
}

/** `host[:port][/path]`: what a registry setting may hold (no scheme, no credentials, no tag). */
const REGISTRY = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/;

/** Why a registry address can't be used, or null. */
export function registryProblem(raw: string): string | null {
  if (/^[a-z]+:\/\//i.test(raw)) return `"${raw.slice(0, 80)}" has a scheme: give the registry as host[:port][/path] (the engines speak TLS to it)`;
  if (raw.includes('@')) return 'a registry address holds no credentials';
  if (!REGISTRY.test(raw)) return `"${raw.slice(0, 80)}" is not host[:port][/path] (lower case, no tag)`;
  const port = /:(\d+)/.exec(raw)?.[1];
  if (port && (Number(port) < 1 || Number(port) > 65535)) return `port ${port} is out of range`;
  // A bare name without a dot or port would read as a Docker Hub namespace, not a registry.
  const first = raw.split('/')[0];
  if (!first.includes('.') && !first.includes(':') && first !== 'localhost')
    return `"${first}" names no registry host (add its domain or port, e.g. ${first}:5000)`;
  return null;
}

/** A reference that names a registry host (`host:port/…`, `host.domain/…`, `localhost/…`): its nodes pull it from there. */
export function namesRegistry(image: string): boolean {
  const first = image.split('/')[0];
  return image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
}

/** On a swarm with a registry, an image named without one lives in the swarm's registry. */
export function inRegistry(image: string, host: HostConfig): string {
  if (hostKind(host) !== 'swarm' || !host.registry || namesRegistry(image)) return image;
  return `${host.registry.replace(/\/+$/, '')}/${image}`;
}

/** `host:5000/name:tag` → `host:5000/name` (a port's colon is not a tag's). */
export function repositoryOf(image: string): string {
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? ref.slice(0, colon) : ref;
}
