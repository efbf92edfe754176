import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Docker from 'dockerode';
import { canConnect, engineEnv, issueCerts, waitFor } from '../support/dockerEngine';
import { unmountUnder } from '../support/mounts';

/**
 * A real swarm of one manager and two workers for the runner tests: three dockerd, each with its
 * own data root, its own network namespace and its own host name, joined with real join tokens.
 * The namespaces are wired to a bridge that lives in a namespace of its own (the machine's
 * iptables and its own Docker engine are never touched); this process reaches the engines over
 * one more veth, on TCP with TLS client certificates made here. Workers advertise 2 fake
 * `NVIDIA-GPU` generic resources each; the manager none, so GPU runs land on the workers.
 */
export const CLUSTER_ROOT = '/tmp/bench-triage-test-swarm';
const SWITCH = 'bt-swarm-switch';
const HOST_ADDR = '10.251.78.1';
const PORT = 2376;
/** The registry the nodes pull from (Debian's docker-registry, the distribution registry), on TLS, in its own namespace. */
const REGISTRY_NS = 'bt-swarm-registry';
const REGISTRY_ADDR = '10.251.78.20';
export const REGISTRY = `${REGISTRY_ADDR}:5000`;
/**
 * Where each node sees its NVIDIA toolkit config (pass it to `swarm check --nvidia-config`): a
 * folder of the cluster's own over which each node's mount namespace binds a folder of its own, so
 * the same path holds each node's file and the machine's /etc is never touched.
 */
export const NODE_NVIDIA_CONFIG = `${CLUSTER_ROOT}/nvidia/config.toml`;
/** The file nvidia-container-toolkit installs, in the shape it ships: swarm-resource commented out. */
const SHIPPED_NVIDIA_CONFIG = [
  'disable-require = false',
  '#swarm-resource = "DOCKER_RESOURCE_GPU"',
  '#accept-nvidia-visible-devices-envvar-when-unprivileged = true',
  '',
  '[nvidia-container-cli]',
  'environment = []',
  'ldconfig = "@/sbin/ldconfig.real"',
  'load-kmods = true',
  '',
  '[nvidia-container-runtime]',
  'log-level = "info"',
  'mode = "auto"',
  '',
].join('\n');

export interface ClusterNode {
  /** Host name of the node (what the swarm reports), also its namespace's suffix. */
  name: string;
  address: string;
  /** `tcp://address:2376` (TLS). */
  tcp: string;
  unix: string;
  gpus: number;
  docker: Docker;
  /** The swarm's id of the node. */
  nodeId: string;
  /** This node's NVIDIA toolkit config, on the machine (the node reads it at NODE_NVIDIA_CONFIG). */
  nvidiaConfig: string;
}

export interface Cluster {
  manager: ClusterNode;
  workers: ClusterNode[];
  /** `address:5000` of the registry every node trusts (TLS, the cluster's CA). */
  registry: string;
  certs: { ca: string; cert: string; key: string };
  /** Kills a node's engine outright (SIGKILL, its containerd and containers too): a machine lost. */
  kill(node: ClusterNode): Promise<void>;
  /** Starts a killed node's engine again on its data root (it rejoins the swarm by itself). */
  revive(node: ClusterNode): Promise<void>;
  stop(): Promise<void>;
}

const NODES = [
  { name: 'bt-sw-manager', address: '10.251.78.10', gpus: 0 },
  { name: 'bt-sw-worker1', address: '10.251.78.11', gpus: 2 },
  { name: 'bt-sw-worker2', address: '10.251.78.12', gpus: 2 },
];

const sh = (cmd: string, args: string[], cwd?: string) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const ip = (...args: string[]) => sh('ip', args);
const inNs = (ns: string, ...args: string[]) => ip('netns', 'exec', ns, ...args);
const nsOf = (name: string) => `bt-swarm-${name.slice('bt-sw-'.length)}`;

function makeCerts(dir: string): Cluster['certs'] {
  const ips = [...NODES.map(n => n.address), REGISTRY_ADDR, '127.0.0.1'];
  return issueCerts(dir, ips, { ca: 'bt-swarm-ca', server: 'bt-swarm-server', client: 'bt-swarm-client' });
}

/** Every namespace and link of an earlier cluster, gone (processes in a namespace are killed first). */
export function removeClusterNetwork(): void {
  const killed: number[] = [];
  for (const ns of [...NODES.map(n => nsOf(n.name)), REGISTRY_NS, SWITCH]) {
    try {
      for (const pid of ip('netns', 'pids', ns).split(/\s+/).filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
          killed.push(Number(pid));
        } catch {
          /* gone */
        }
      }
    } catch {
      /* no such namespace */
    }
  }
  // An engine of an interrupted earlier run still dying would answer on the new one's socket path
  // (an image built there is then lost): wait until every killed process is gone.
  for (let i = 0; i < 200 && killed.some(pid => existsSync(`/proc/${pid}`)); i++) execFileSync('sleep', ['0.05']);
  for (const ns of [...NODES.map(n => nsOf(n.name)), REGISTRY_NS, SWITCH]) {
    try {
      ip('netns', 'del', ns);
    } catch {
      /* not there */
    }
  }
  try {
    ip('link', 'del', 'bt-sw-host');
  } catch {
    /* gone with the switch */
  }
}

function makeNetwork(): void {
  removeClusterNetwork();
  ip('netns', 'add', SWITCH);
  inNs(SWITCH, 'ip', 'link', 'add', 'br0', 'type', 'bridge');
  inNs(SWITCH, 'ip', 'link', 'set', 'br0', 'up');
  inNs(SWITCH, 'ip', 'link', 'set', 'lo', 'up');
  const wire = (outer: string, inner: string, ns: string | null, addr: string) => {
    ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
    ip('link', 'set', inner, 'netns', SWITCH);
    inNs(SWITCH, 'ip', 'link', 'set', inner, 'master', 'br0');
    inNs(SWITCH, 'ip', 'link', 'set', inner, 'up');
    if (ns) {
      ip('link', 'set', outer, 'netns', ns);
      inNs(ns, 'ip', 'addr', 'add', `${addr}/24`, 'dev', outer);
      inNs(ns, 'ip', 'link', 'set', outer, 'up');
      inNs(ns, 'ip', 'link', 'set', 'lo', 'up');
    } else {
      ip('addr', 'add', `${addr}/24`, 'dev', outer);
      ip('link', 'set', outer, 'up');
    }
  };
  wire('bt-sw-host', 'bt-sw-p0', null, HOST_ADDR);
  NODES.forEach((n, i) => {
    ip('netns', 'add', nsOf(n.name));
    wire(`bt-sw-e${i + 1}`, `bt-sw-p${i + 1}`, nsOf(n.name), n.address);
  });
  ip('netns', 'add', REGISTRY_NS);
  wire('bt-sw-e9', 'bt-sw-p9', REGISTRY_NS, REGISTRY_ADDR);
}

/** One node's engine in its namespace, under its own host name (its own UTS namespace). */
function startDockerd(n: (typeof NODES)[number], certDir: string): { proc: ChildProcess; unix: string; log: string } {
  const dir = path.join(CLUSTER_ROOT, n.name);
  mkdirSync(dir, { recursive: true });
  const unix = path.join(dir, 'docker.sock');
  const config = path.join(dir, 'daemon.json');
  const gpus = Array.from({ length: n.gpus }, (_, k) => `NVIDIA-GPU=${n.name}-GPU-${k}`);
  writeFileSync(config, JSON.stringify(gpus.length ? { 'node-generic-resources': gpus } : {}, null, 2));
  const args = [
    '--host',
    `unix://${unix}`,
    '--host',
    `tcp://${n.address}:${PORT}`,
    '--tlsverify',
    '--tlscacert',
    path.join(certDir, 'ca.pem'),
    '--tlscert',
    path.join(certDir, 'server-cert.pem'),
    '--tlskey',
    path.join(certDir, 'server-key.pem'),
    '--data-root',
    path.join(dir, 'data'),
    '--exec-root',
    path.join(dir, 'exec'),
    '--pidfile',
    path.join(dir, 'docker.pid'),
    '--config-file',
    config,
  ];
  const log = path.join(dir, 'dockerd.log');
  const fd = openSync(log, 'a');
  // Its own /etc/docker (in a mount namespace of its own): the registry's CA under certs.d, and
  // never the machine's daemon files.
  const etc = path.join(dir, 'etc-docker');
  mkdirSync(path.join(etc, 'certs.d', REGISTRY), { recursive: true });
  copyFileSync(path.join(certDir, 'ca.pem'), path.join(etc, 'certs.d', REGISTRY, 'ca.crt'));
  const nvidia = path.join(dir, 'nvidia');
  mkdirSync(nvidia, { recursive: true });
  writeFileSync(path.join(nvidia, 'config.toml'), SHIPPED_NVIDIA_CONFIG);
  mkdirSync(path.dirname(NODE_NVIDIA_CONFIG), { recursive: true });
  const script = `mount --bind ${etc} /etc/docker && mount --bind ${nvidia} ${path.dirname(NODE_NVIDIA_CONFIG)} && echo ${n.name} > /proc/sys/kernel/hostname && exec /usr/sbin/dockerd "$@"`;
  const proc = spawn(
    '/usr/bin/nsenter',
    [`--net=/run/netns/${nsOf(n.name)}`, '/usr/bin/unshare', '--uts', '--mount', '--propagation', 'private', '/bin/sh', '-c', script, 'dockerd', ...args],
    { stdio: ['ignore', fd, fd], env: engineEnv(dir) },
  );
  return { proc, unix, log };
}

/** The registry: TLS with the cluster's CA, storage under the cluster's folder, no auth (the nodes reach it on the switch only). */
function startRegistry(certDir: string): { proc: ChildProcess; log: string } {
  const dir = path.join(CLUSTER_ROOT, 'registry');
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  const config = path.join(dir, 'config.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: warn',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${path.join(dir, 'data')}`,
      'http:',
      `  addr: ${REGISTRY}`,
      '  tls:',
      `    certificate: ${path.join(certDir, 'server-cert.pem')}`,
      `    key: ${path.join(certDir, 'server-key.pem')}`,
      '',
    ].join('\n'),
  );
  const log = path.join(dir, 'registry.log');
  const fd = openSync(log, 'a');
  const proc = spawn('/usr/bin/nsenter', [`--net=/run/netns/${REGISTRY_NS}`, '/usr/bin/docker-registry', 'serve', config], { stdio: ['ignore', fd, fd] });
  return { proc, log };
}

/** Starts the three engines, makes the swarm, and labels each worker with its engine's address. */
export async function startCluster(): Promise<Cluster> {
  removeClusterNetwork();
  unmountUnder(CLUSTER_ROOT);
  rmSync(CLUSTER_ROOT, { recursive: true, force: true });
  mkdirSync(CLUSTER_ROOT, { recursive: true });
  makeNetwork();
  const certDir = path.join(CLUSTER_ROOT, 'certs');
  const certs = makeCerts(certDir);
  const procs = new Map<string, ChildProcess>();
  const nodes: ClusterNode[] = [];
  const registry = startRegistry(certDir);
  procs.set('registry', registry.proc);
  await waitFor('the registry', () => canConnect({ host: REGISTRY_ADDR, port: 5000 }), 30_000, registry.log);
  for (const n of NODES) {
    const d = startDockerd(n, certDir);
    procs.set(n.name, d.proc);
    await waitFor(`dockerd ${n.name}`, () => canConnect({ path: d.unix }), 60_000, d.log);
    await waitFor(`dockerd ${n.name} over TLS`, () => canConnect({ host: n.address, port: PORT }), 30_000, d.log);
    const docker = new Docker({ socketPath: d.unix });
    nodes.push({
      ...n,
      tcp: `tcp://${n.address}:${PORT}`,
      unix: `unix://${d.unix}`,
      docker,
      nodeId: '',
      nvidiaConfig: path.join(CLUSTER_ROOT, n.name, 'nvidia', 'config.toml'),
    });
  }
  const [manager, ...workers] = nodes;
  await manager.docker.swarmInit({ ListenAddr: `${manager.address}:2377`, AdvertiseAddr: `${manager.address}:2377` });
  const tokens = ((await manager.docker.swarmInspect()) as { JoinTokens: { Worker: string } }).JoinTokens;
  for (const w of workers)
    await w.docker.swarmJoin({
      ListenAddr: `${w.address}:2377`,
      AdvertiseAddr: `${w.address}:2377`,
      RemoteAddrs: [`${manager.address}:2377`],
      JoinToken: tokens.Worker,
    });
  for (const n of nodes) n.nodeId = ((await n.docker.info()) as { Swarm: { NodeID: string } }).Swarm.NodeID;
  // Every node ready, and each labelled with its engine's address (how the manager's runner reaches a task).
  await waitFor(
    'the swarm',
    async () => {
      const list = (await manager.docker.listNodes()) as Array<{ Status?: { State?: string } }>;
      return list.length === 3 && list.every(x => x.Status?.State === 'ready');
    },
    60_000,
  );
  for (const n of workers) {
    const node = manager.docker.getNode(n.nodeId);
    const cur = (await node.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> & { Labels?: Record<string, string> } };
    await node.update({ version: cur.Version.Index, ...cur.Spec, Labels: { ...(cur.Spec.Labels ?? {}), 'bench-triage.engine': n.tcp } });
  }
  return {
    manager,
    workers,
    registry: REGISTRY,
    certs,
    async kill(node) {
      // The engine and everything in its namespace (containerd, shims, the task's processes).
      for (const pid of ip('netns', 'pids', nsOf(node.name)).split(/\s+/).filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      const p = procs.get(node.name);
      if (p && p.exitCode === null && p.signalCode === null) await new Promise(r => p.once('exit', r));
    },
    async revive(node) {
      const n = NODES.find(x => x.name === node.name)!;
      rmSync(path.join(CLUSTER_ROOT, n.name, 'docker.pid'), { force: true });
      const d = startDockerd(n, certDir);
      procs.set(n.name, d.proc);
      await waitFor(`dockerd ${n.name} again`, () => canConnect({ path: d.unix }), 60_000, d.log);
    },
    async stop() {
      for (const p of procs.values()) if (p.exitCode === null) p.kill('SIGTERM');
      await Promise.all([...procs.values()].map(p => (p.exitCode === null ? new Promise(r => p.once('exit', r)) : null)));
      removeClusterNetwork();
      unmountUnder(CLUSTER_ROOT);
      rmSync(CLUSTER_ROOT, { recursive: true, force: true });
    },
  };
}

/** An image from one node's engine into another's (docker save | docker load): no registry involved. */
export async function copyImage(from: Docker, to: Docker, image: string): Promise<void> {
  const tar = (await from.getImage(image).get()) as NodeJS.ReadableStream;
  const res = (await to.loadImage(tar)) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) => {
    res.on('end', () => resolve());
    res.on('error', reject);
    res.resume();
  });
}
