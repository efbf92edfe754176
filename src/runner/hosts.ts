import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import type { HostConfig } from '../core/run/hosts';

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
