import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { unmountUnder } from './mounts';

/**
 * A real Docker engine for the runner tests, started by the suite: dockerd on a unix socket and on
 * TCP with TLS client certificates generated here with openssl, and an sshd on loopback whose
 * sessions reach the same engine (for ssh:// hosts). Root and Debian's docker.io, openssh-server,
 * openssl and iproute2 are needed; `missingPrerequisites` says what is missing.
 *
 * The engine lives in its own network namespace, reached over a veth pair: its bridge, its
 * iptables rules and a swarm's networks are its own, and the machine's engine (its `docker0`,
 * its containers) is never touched. An engine started on the host's network with `--bridge none`
 * used to delete the host's `docker0`.
 */
export const ROOT = '/tmp/bench-triage-test-engine';
export const NETNS = 'bt-test-engine';
const HOST_ADDR = '10.251.77.1',
  ENGINE_ADDR = '10.251.77.2';
export interface Engine {
  unix: string;
  tcp: string;
  /** The engine's address in its namespace (for `docker swarm init --advertise-addr`). */
  address: string;
  certs: { ca: string; cert: string; key: string; wrongCa: string };
  ssh: { url: string; key: string; wrongKey: string; knownHosts: string };
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const run = (cmd: string, args: string[], cwd?: string) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export function missingPrerequisites(): string[] {
  const miss: string[] = [];
  if (process.getuid?.() !== 0) miss.push('root (dockerd and sshd are started by the suite)');
  for (const [bin, pkg] of [
    ['/usr/sbin/dockerd', 'docker.io'],
    ['/usr/sbin/sshd', 'openssh-server'],
    ['/usr/bin/openssl', 'openssl'],
    ['/usr/bin/busybox', 'busybox-static'],
    ['/usr/bin/ssh-keygen', 'openssh-client'],
    ['/usr/bin/nsenter', 'util-linux'],
    ['/usr/bin/unshare', 'util-linux'],
    ['/usr/bin/docker-registry', 'docker-registry'],
  ] as const)
    if (!existsSync(bin)) miss.push(`${bin} (Debian package ${pkg})`);
  if (!['/usr/sbin/ip', '/usr/bin/ip', '/sbin/ip', '/bin/ip'].some(existsSync)) miss.push('ip (Debian package iproute2)');
  const hasDockerCli = ['/usr/bin/docker', '/usr/local/bin/docker'].some(existsSync);
  if (!hasDockerCli) miss.push('the docker CLI (Debian package docker.io; ssh:// hosts run `docker system dial-stdio`)');
  return miss;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net
      .createServer()
      .listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      })
      .on('error', reject);
  });
}

export async function waitFor(what: string, check: () => Promise<boolean>, ms: number, log?: string): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await check().catch(() => false)) return;
    await new Promise(r => setTimeout(r, 200));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s${log && existsSync(log) ? `:\n${readFileSync(log, 'utf8').slice(-2000)}` : ''}`);
}

export const canConnect = (opts: net.NetConnectOpts) =>
  new Promise<boolean>(resolve => {
    const s = net
      .connect(opts, () => {
        s.destroy();
        resolve(true);
      })
      .on('error', () => resolve(false));
  });

/**
 * A CA, and a server and a client certificate it signs (EC P-256, valid 2 days): the server's for
 * the given IP addresses. Files in `dir`: ca.pem, server-cert.pem/-key.pem, client-cert.pem/-key.pem.
 */
export function issueCerts(
  dir: string,
  ips: readonly string[],
  names: { ca: string; server: string; client: string },
): { ca: string; cert: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('openssl', ['req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${names.ca}`], dir);
  for (const [name, usage, cn] of [
    ['server', 'serverAuth', names.server],
    ['client', 'clientAuth', names.client],
  ]) {
    writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${ips.map(a => `IP:${a}`).join(',')}\nextendedKeyUsage=${usage}\n`);
    run('openssl', ['req', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
    run(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca-key.pem',
        '-CAcreateserial',
        '-out',
        `${name}-cert.pem`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  }
  return { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'client-cert.pem'), key: path.join(dir, 'client-key.pem') };
}

function makeCerts(dir: string): Engine['certs'] {
  const certs = issueCerts(dir, [ENGINE_ADDR, '127.0.0.1'], { ca: 'ca', server: ENGINE_ADDR, client: 'bench-triage-test' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('openssl', ['req', '-x509', ...ec, '-keyout', 'wrong-ca-key.pem', '-out', 'wrong-ca.pem', '-days', '2', '-subj', '/CN=wrong-ca'], dir);
  return { ...certs, wrongCa: path.join(dir, 'wrong-ca.pem') };
}

/** Stops a daemon left by an earlier, interrupted suite (gracefully, so its containerd goes too) and removes its pid file. */
async function killPidFile(file: string): Promise<void> {
  let pid = 0;
  try {
    pid = Number(readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (pid > 0 && alive()) {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 150 && alive(); i++) await new Promise(r => setTimeout(r, 100));
    if (alive()) process.kill(pid, 'SIGKILL');
  }
  rmSync(file, { force: true });
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** The engine's network namespace and the veth pair to it (recreated from scratch). */
function makeNetns(): void {
  removeNetns();
  ip('netns', 'add', NETNS);
  ip('link', 'add', 'bt-test-h0', 'type', 'veth', 'peer', 'name', 'bt-test-n0');
  ip('link', 'set', 'bt-test-n0', 'netns', NETNS);
  ip('addr', 'add', `${HOST_ADDR}/30`, 'dev', 'bt-test-h0');
  ip('link', 'set', 'bt-test-h0', 'up');
  ip('netns', 'exec', NETNS, 'ip', 'addr', 'add', `${ENGINE_ADDR}/30`, 'dev', 'bt-test-n0');
  ip('netns', 'exec', NETNS, 'ip', 'link', 'set', 'bt-test-n0', 'up');
  ip('netns', 'exec', NETNS, 'ip', 'link', 'set', 'lo', 'up');
}

/** Deletes the namespace (its interfaces, the veth pair and the engine's own bridges go with it). */
export function removeNetns(): void {
  try {
    ip('netns', 'del', NETNS);
  } catch {
    /* not there */
  }
  try {
    ip('link', 'del', 'bt-test-h0');
  } catch {
    /* gone with the namespace */
  }
}

/**
 * The environment of an engine the suite starts: its own temporary folder. On a loaded machine
 * dockerd restarts a containerd whose health checks time out, and first sends it SIGUSR1 for a
 * stack dump, which containerd writes to its temporary folder: `/tmp/containerd.<pid>.stacks.log`
 * was left on the machine after a CI run. Here it goes with the engine's own folder.
 */
export function engineEnv(root: string): NodeJS.ProcessEnv {
  const tmp = path.join(root, 'tmp');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  return { ...process.env, TMPDIR: tmp };
}

export async function startEngine(): Promise<Engine> {
  const pidFile = path.join(ROOT, 'docker.pid');
  await killPidFile(pidFile);
  await killPidFile(path.join(ROOT, 'sshd.pid'));
  unmountUnder(ROOT);
  rmSync(path.join(ROOT, 'exec'), { recursive: true, force: true });
  mkdirSync(ROOT, { recursive: true });
  makeNetns();
  const sock = path.join(ROOT, 'docker.sock');
  const certs = makeCerts(path.join(ROOT, 'certs'));
  const port = 23760; // inside the namespace nothing else listens
  const args = [
    '--net=/run/netns/' + NETNS,
    '/usr/sbin/dockerd',
    '--host',
    `unix://${sock}`,
    '--host',
    `tcp://${ENGINE_ADDR}:${port}`,
    '--tlsverify',
    '--tlscacert',
    certs.ca,
    '--tlscert',
    path.join(ROOT, 'certs/server-cert.pem'),
    '--tlskey',
    path.join(ROOT, 'certs/server-key.pem'),
    '--data-root',
    path.join(ROOT, 'data'),
    '--exec-root',
    path.join(ROOT, 'exec'),
    '--pidfile',
    pidFile,
    // Its own daemon config (generic resources for swarm tests); never the machine's /etc/docker/daemon.json.
    '--config-file',
    writeDaemonConfig(),
  ];
  const log = path.join(ROOT, 'dockerd.log');
  let proc: ChildProcess;
  const start = async () => {
    const fd = openSync(log, 'a');
    proc = spawn('/usr/bin/nsenter', args, { stdio: ['ignore', fd, fd], env: engineEnv(ROOT) });
    await waitFor('dockerd', () => canConnect({ path: sock }), 60_000, log);
  };
  await start();
  clearLeftovers(sock);
  const ssh = await startSshd(sock);
  return {
    unix: `unix://${sock}`,
    tcp: `tcp://${ENGINE_ADDR}:${port}`,
    address: ENGINE_ADDR,
    certs,
    ssh: ssh.info,
    async restart() {
      proc.kill('SIGTERM');
      await new Promise(r => proc.once('exit', r));
      await start();
    },
    async stop() {
      ssh.proc.kill('SIGTERM');
      proc.kill('SIGTERM');
      await new Promise(r => proc.once('exit', r));
      unmountUnder(path.join(ROOT, 'exec'));
      removeNetns();
    },
  };
}

/**
 * What an earlier, killed run left in the engine's data (kept between runs for its image cache):
 * its swarm and its containers go, so every suite starts from an engine with images only.
 */
function clearLeftovers(sock: string): void {
  const docker = (...args: string[]) => run('docker', ['-H', `unix://${sock}`, ...args]);
  try {
    docker('swarm', 'leave', '--force');
  } catch {
    /* not in a swarm */
  }
  const ids = docker('ps', '-aq').split(/\s+/).filter(Boolean);
  if (ids.length) docker('rm', '-f', '-v', ...ids);
}

/** The test engine's daemon.json: two fake GPUs as generic resources (swarm schedules on them). */
function writeDaemonConfig(): string {
  const file = path.join(ROOT, 'daemon.json');
  writeFileSync(file, JSON.stringify({ 'node-generic-resources': ['NVIDIA-GPU=GPU-0', 'NVIDIA-GPU=GPU-1'] }, null, 2));
  return file;
}

async function startSshd(sock: string): Promise<{ proc: ChildProcess; info: Engine['ssh'] }> {
  const dir = path.join(ROOT, 'ssh');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  mkdirSync('/run/sshd', { recursive: true });
  for (const k of ['host_key', 'client_key', 'wrong_key']) run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', k, '-f', path.join(dir, k)]);
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'client_key.pub')));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${dir}/host_key`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      `PidFile ${ROOT}/sshd.pid`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      `SetEnv DOCKER_HOST=unix://${sock}`,
      '',
    ].join('\n'),
  );
  const hostPub = readFileSync(path.join(dir, 'host_key.pub'), 'utf8').trim().split(/\s+/);
  writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub[0]} ${hostPub[1]}\n`);
  const log = path.join(dir, 'sshd.log');
  const proc = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', openSync(log, 'a')] });
  await waitFor('sshd', () => canConnect({ host: '127.0.0.1', port }), 20_000, log);
  return {
    proc,
    info: {
      url: `ssh://root@127.0.0.1:${port}`,
      key: path.join(dir, 'client_key'),
      wrongKey: path.join(dir, 'wrong_key'),
      knownHosts: path.join(dir, 'known_hosts'),
    },
  };
}

/** Builds bench-triage/fake-vllm:test into the engine (scripts/fake-image.mjs); throws with its stderr. */
export function buildFakeImage(engineUnix: string): void {
  const built = spawnSync(process.execPath, [path.join(__dirname, '../../scripts/fake-image.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST: engineUnix },
  });
  if (built.status !== 0) throw new Error(`the fake vLLM image could not be built: ${built.stderr}`);
}
