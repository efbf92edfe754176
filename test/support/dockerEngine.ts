import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

/**
 * A real Docker engine for the runner tests, started by the suite: dockerd on a unix socket and on
 * tcp://127.0.0.1 with TLS client certificates generated here with openssl, and an sshd on
 * loopback whose sessions reach the same engine (for ssh:// hosts). Root and Debian's docker.io,
 * openssh-server and openssl are needed; `requireEngine` says what is missing.
 */
export const ROOT = '/tmp/bench-triage-test-engine';
export interface Engine {
  unix: string;
  tcp: string;
  certs: { ca: string; cert: string; key: string; wrongCa: string };
  ssh: { url: string; key: string; wrongKey: string; knownHosts: string };
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const run = (cmd: string, args: string[], cwd?: string) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export function missingPrerequisites(): string[] {
  const miss: string[] = [];
  if (process.getuid?.() !== 0) miss.push('root (dockerd and sshd are started by the suite)');
  for (const [bin, pkg] of [['/usr/sbin/dockerd', 'docker.io'], ['/usr/sbin/sshd', 'openssh-server'], ['/usr/bin/openssl', 'openssl'], ['/usr/bin/busybox', 'busybox-static'], ['/usr/bin/ssh-keygen', 'openssh-client']] as const)
    if (!existsSync(bin)) miss.push(`${bin} (Debian package ${pkg})`);
  const hasDockerCli = ['/usr/bin/docker', '/usr/local/bin/docker'].some(existsSync);
  if (!hasDockerCli) miss.push('the docker CLI (Debian package docker.io; ssh:// hosts run `docker system dial-stdio`)');
  return miss;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); }).on('error', reject);
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, ms: number, log?: string): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) { if (await check().catch(() => false)) return; await new Promise(r => setTimeout(r, 200)); }
  throw new Error(`${what} did not come up within ${ms / 1000} s${log && existsSync(log) ? `:\n${readFileSync(log, 'utf8').slice(-2000)}` : ''}`);
}

const canConnect = (opts: net.NetConnectOpts) => new Promise<boolean>(resolve => {
  const s = net.connect(opts, () => { s.destroy(); resolve(true); }).on('error', () => resolve(false));
});

function makeCerts(dir: string): Engine['certs'] {
  mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string) => run('openssl', ['req', '-x509', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`], dir);
  ca('ca'); ca('wrong-ca');
  for (const [name, usage] of [['server', 'serverAuth'], ['client', 'clientAuth']]) {
    writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=IP:127.0.0.1\nextendedKeyUsage=${usage}\n`);
    run('openssl', ['req', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${name === 'server' ? '127.0.0.1' : 'bench-triage-test'}`], dir);
    run('openssl', ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', `${name}-cert.pem`, '-days', '2', '-extfile', `${name}.ext`], dir);
  }
  return { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'client-cert.pem'), key: path.join(dir, 'client-key.pem'), wrongCa: path.join(dir, 'wrong-ca.pem') };
}

/** Stops a daemon left by an earlier, interrupted suite (gracefully, so its containerd goes too) and removes its pid file. */
async function killPidFile(file: string): Promise<void> {
  let pid = 0;
  try { pid = Number(readFileSync(file, 'utf8')); } catch { return; }
  const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
  if (pid > 0 && alive()) {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 150 && alive(); i++) await new Promise(r => setTimeout(r, 100));
    if (alive()) process.kill(pid, 'SIGKILL');
  }
  rmSync(file, { force: true });
}

export async function startEngine(): Promise<Engine> {
  const pidFile = path.join(ROOT, 'docker.pid');
  await killPidFile(pidFile); await killPidFile(path.join(ROOT, 'sshd.pid'));
  rmSync(path.join(ROOT, 'exec'), { recursive: true, force: true });
  mkdirSync(ROOT, { recursive: true });
  const sock = path.join(ROOT, 'docker.sock');
  const certs = makeCerts(path.join(ROOT, 'certs'));
  const port = await freePort();
  const args = ['--host', `unix://${sock}`, '--host', `tcp://127.0.0.1:${port}`, '--tlsverify', '--tlscacert', certs.ca,
    '--tlscert', path.join(ROOT, 'certs/server-cert.pem'), '--tlskey', path.join(ROOT, 'certs/server-key.pem'),
    '--data-root', path.join(ROOT, 'data'), '--exec-root', path.join(ROOT, 'exec'), '--pidfile', pidFile,
    // Its own engine beside any other on the machine: no bridge, no iptables (runs talk over loopback inside the container).
    '--bridge', 'none', '--iptables=false', '--ip-masq=false'];
  const log = path.join(ROOT, 'dockerd.log');
  let proc: ChildProcess;
  const start = async () => {
    const fd = openSync(log, 'a');
    proc = spawn('/usr/sbin/dockerd', args, { stdio: ['ignore', fd, fd] });
    await waitFor('dockerd', () => canConnect({ path: sock }), 60_000, log);
  };
  await start();
  const ssh = await startSshd(sock);
  return {
    unix: `unix://${sock}`, tcp: `tcp://127.0.0.1:${port}`, certs, ssh: ssh.info,
    async restart() {
      proc.kill('SIGTERM');
      await new Promise(r => proc.once('exit', r));
      await start();
    },
    async stop() {
      ssh.proc.kill('SIGTERM');
      proc.kill('SIGTERM');
      await new Promise(r => proc.once('exit', r));
    },
  };
}

async function startSshd(sock: string): Promise<{ proc: ChildProcess; info: Engine['ssh'] }> {
  const dir = path.join(ROOT, 'ssh');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  mkdirSync('/run/sshd', { recursive: true });
  for (const k of ['host_key', 'client_key', 'wrong_key']) run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', k, '-f', path.join(dir, k)]);
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'client_key.pub')));
  const port = await freePort();
  writeFileSync(path.join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${dir}/host_key`, `AuthorizedKeysFile ${dir}/authorized_keys`, `PidFile ${ROOT}/sshd.pid`,
    'PermitRootLogin prohibit-password', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no',
    `SetEnv DOCKER_HOST=unix://${sock}`, '',
  ].join('\n'));
  const hostPub = readFileSync(path.join(dir, 'host_key.pub'), 'utf8').trim().split(/\s+/);
  writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub[0]} ${hostPub[1]}\n`);
  const log = path.join(dir, 'sshd.log');
  const proc = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', openSync(log, 'a')] });
  await waitFor('sshd', () => canConnect({ host: '127.0.0.1', port }), 20_000, log);
  return { proc, info: { url: `ssh://root@127.0.0.1:${port}`, key: path.join(dir, 'client_key'), wrongKey: path.join(dir, 'wrong_key'), knownHosts: path.join(dir, 'known_hosts') } };
}
