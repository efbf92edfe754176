import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

/** The kinds of host a run can go to (the campaign issue adds more). */
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
}

/** What docker-modem needs to reach the host. Reads TLS and SSH key files (errors name the file). */
export interface ConnectOptions {
  socketPath?: string;
  host?: string;
  port?: number;
  protocol?: 'http' | 'https' | 'ssh';
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  username?: string;
  sshOptions?: Record<string, unknown>;
}

export class HostConfigError extends Error {}

export const hostKind = (h: HostConfig): HostKind => h.kind ?? 'docker';

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
 * A host address with its kind: `swarm+unix:///var/run/docker.sock`, `swarm+ssh://user@h100`,
 * `swarm+tcp://manager:2376` or `swarm://manager:2376` (TCP) name a swarm manager; any other
 * address is a plain Docker engine.
 */
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

export function splitHostUrl(url: string): { kind: HostKind; docker: string } {
  const m = /^swarm(?:\+(unix|tcp|ssh))?:\/\/(.*)$/.exec(url);
  if (!m) return { kind: 'docker', docker: url };
  return { kind: 'swarm', docker: `${m[1] ?? 'tcp'}://${m[2]}` };
}

function readConfigFile(file: string, what: string, host: HostConfig): Buffer {
  try {
    return readFileSync(file.replace(/^~(?=\/)/, homedir()));
  } catch (e) {
    throw new HostConfigError(`${host.label}: cannot read the ${what} ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

export function effectiveDockerUrl(host: HostConfig, env = process.env): string {
  return host.docker || env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

export function connectOptions(host: HostConfig, env = process.env): { options: ConnectOptions; hostKeyProblem: () => string | null } {
  const raw = effectiveDockerUrl(host, env);
  let hostKeyProblem: string | null = null;
  const result = (options: ConnectOptions) => ({ options, hostKeyProblem: () => hostKeyProblem });
  if (raw.startsWith('unix://')) return result({ socketPath: raw.slice('unix://'.length) });
  let url: URL;
  try {
    url = new URL(raw.includes('://') ? raw : `tcp://${raw}`);
  } catch {
    throw new HostConfigError(`${host.label}: "${raw}" is not a Docker host (use unix:///path, tcp://host:port or ssh://user@host)`);
  }
  if (url.protocol === 'tcp:' || url.protocol === 'http:' || url.protocol === 'https:') {
    const tls = host.tls;
    const port = Number(url.port || (tls ? 2376 : 2375));
    if (!tls) return result({ host: url.hostname, port, protocol: 'http' });
    return result({
      host: url.hostname,
      port,
      protocol: 'https',
      ca: readConfigFile(tls.ca, 'TLS CA certificate', host),
      cert: readConfigFile(tls.cert, 'TLS client certificate', host),
      key: readConfigFile(tls.key, 'TLS client key', host),
    });
  }
  if (url.protocol === 'ssh:') {
    const port = Number(url.port || 22);
    const knownHosts = host.ssh?.knownHostsFile ?? path.join(homedir(), '.ssh', 'known_hosts');
    const sshOptions: Record<string, unknown> = {
      readyTimeout: 15000,
      // Like `ssh` in batch mode: an unknown or changed host key is refused, never trusted silently.
      hostVerifier: (key: Buffer) => {
        hostKeyProblem = verifyHostKey(knownHosts, url.hostname, port, key);
        return hostKeyProblem === null;
      },
    };
    if (host.ssh?.identityFile) sshOptions.privateKey = readConfigFile(host.ssh.identityFile, 'SSH identity file', host);
    else if (env.SSH_AUTH_SOCK) sshOptions.agent = env.SSH_AUTH_SOCK;
    else throw new HostConfigError(`${host.label}: no SSH identity for ${raw}: set an identity file for the host or start ssh-agent (SSH_AUTH_SOCK)`);
    return result({ protocol: 'ssh', host: url.hostname, port, username: decodeURIComponent(url.username || 'root'), sshOptions });
  }
  throw new HostConfigError(`${host.label}: unsupported Docker host scheme ${url.protocol} in "${raw}" (use unix://, tcp:// or ssh://)`);
}

/** null when `key` is listed for the host in known_hosts; otherwise why not. Handles hashed names and [host]:port. */
export function verifyHostKey(knownHostsFile: string, hostname: string, port: number, key: Buffer): string | null {
  let text: string;
  try {
    text = readFileSync(knownHostsFile, 'utf8');
  } catch {
    return `the host key of ${hostname} cannot be checked: ${knownHostsFile} does not exist (connect once with ssh to record it)`;
  }
  const names = port === 22 ? [hostname] : [`[${hostname}]:${port}`];
  let listed = false;
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 3 || parts[0].startsWith('#') || parts[0].startsWith('@')) continue;
    const [patterns, , b64] = parts;
    if (!names.some(n => hostMatches(patterns, n))) continue;
    listed = true;
    if (Buffer.from(b64, 'base64').equals(key)) return null;
  }
  return listed
    ? `the host key of ${hostname} does not match ${knownHostsFile} (possible man-in-the-middle, or the host was reinstalled)`
    : `${hostname} is not in ${knownHostsFile} (connect once with ssh to record its host key)`;
}

function hostMatches(patterns: string, name: string): boolean {
  if (patterns.startsWith('|1|')) {
    const [, , salt, hash] = patterns.split('|');
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  return patterns.split(',').includes(name);
}
