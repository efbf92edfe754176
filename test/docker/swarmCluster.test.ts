import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { buildFakeImage, missingPrerequisites } from '../support/dockerEngine';
import { copyImage, startCluster, type Cluster, type ClusterNode } from './swarmCluster';
import { makeRunFixture, removeRunFixtures, type RunFixture } from '../support/runFixture';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const IMAGE = 'bench-triage/fake-vllm:test';
const LABEL = 'bench-triage.run-id';

let cluster: Cluster;
let fx: RunFixture;

const hostArgs = () => [
  '--host',
  `swarm+${cluster.manager.tcp}`,
  '--tls-ca',
  cluster.certs.ca,
  '--tls-cert',
  cluster.certs.cert,
  '--tls-key',
  cluster.certs.key,
];
const common = () => ['--checkout', fx.checkout, '--image-human', IMAGE, '--image-baseline', IMAGE];

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, DOCKER_HOST: '' } });
  let stdout = '',
    stderr = '';
  proc.stdout.on('data', d => (stdout += d));
  proc.stderr.on('data', d => (stderr += d));
  return new Promise(resolve => proc.on('exit', code => resolve({ code, stdout, stderr })));
}

const running = async (d: Docker) => (await d.listContainers({ filters: JSON.stringify({ label: [LABEL], status: ['running'] }) }).catch(() => [])).length;

/** Run containers on each worker every 150 ms: the most seen at once on each. */
function watchWorkers(workers: ClusterNode[]) {
  const max = new Map(workers.map(w => [w.name, 0]));
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const w of workers) max.set(w.name, Math.max(max.get(w.name)!, await running(w.docker)));
      await new Promise(r => setTimeout(r, 150));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return max;
    },
  };
}

async function leftovers(): Promise<Record<string, number>> {
  const out: Record<string, number> = {
    services: (await cluster.manager.docker.listServices({ filters: JSON.stringify({ label: [LABEL] }) })).length,
  };
  for (const n of [cluster.manager, ...cluster.workers])
    out[n.name] = (await n.docker.listContainers({ all: true, filters: JSON.stringify({ label: [LABEL] }) }).catch(() => [])).length;
  return out;
}

async function settled(): Promise<Record<string, number>> {
  let l = await leftovers();
  for (let i = 0; i < 80 && Object.values(l).some(Boolean); i++) {
    await new Promise(r => setTimeout(r, 250));
    l = await leftovers();
  }
  return l;
}

function runRecords(folder: string): Array<{ status: string; node: string | null; runId: string; dir: string }> {
  const out: Array<{ status: string; node: string | null; runId: string; dir: string }> = [];
  const root = path.join(folder, '.bench-triage/runs');
  if (!existsSync(root)) return out;
  for (const c of readdirSync(root))
    for (const role of readdirSync(path.join(root, c)))
      for (const id of readdirSync(path.join(root, c, role))) {
        const f = path.join(root, c, role, id, 'run.json');
        if (!existsSync(f)) continue;
        const r = JSON.parse(readFileSync(f, 'utf8'));
        out.push({ status: r.status, node: r.node ?? null, runId: id, dir: path.dirname(f) });
      }
  return out;
}

describe('a swarm of one manager and two workers, each a dockerd of its own (own namespace, data root and host name), 2 fake GPUs per worker', function () {
  this.timeout(600_000);

  before(async function () {
    const missing = missingPrerequisites();
    if (missing.length) {
      if (process.env.CI === 'true') throw new Error(`Docker suite prerequisites missing: ${missing.join('; ')}`);
      this.skip();
    }
    cluster = await startCluster();
    buildFakeImage(cluster.manager.unix);
    for (const w of cluster.workers) await copyImage(cluster.manager.docker, w.docker, IMAGE);
    fx = makeRunFixture();
  });

  after(async function () {
    removeRunFixtures();
    if (!cluster) return;
    const left = await settled().catch(e => ({ error: String(e) }));
    await cluster.stop();
    assert.deepEqual(left, { services: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 }, 'services or containers left behind');
  });

  it('the workers advertise 2 NVIDIA-GPU each and name their engines; the manager none', async () => {
    const nodes = (await cluster.manager.docker.listNodes()) as Array<{
      Description: { Hostname: string; Resources?: { GenericResources?: Array<{ NamedResourceSpec?: { Kind: string } }> } };
      Spec: { Labels?: Record<string, string> };
    }>;
    const gpus = Object.fromEntries(
      nodes.map(n => [
        n.Description.Hostname,
        (n.Description.Resources?.GenericResources ?? []).filter(r => r.NamedResourceSpec?.Kind === 'NVIDIA-GPU').length,
      ]),
    );
    assert.deepEqual(gpus, { 'bt-sw-manager': 0, 'bt-sw-worker1': 2, 'bt-sw-worker2': 2 });
    for (const w of cluster.workers) assert.equal(nodes.find(n => n.Description.Hostname === w.name)?.Spec.Labels?.['bench-triage.engine'], w.tcp);
  });

  it('swarm status lists the nodes, their GPUs advertised and reserved, and a run on the worker it landed on (the run also gives the commit its entry)', async () => {
    const idle = await cli(['swarm', 'status', ...hostArgs(), '--json']);
    assert.equal(idle.code, 0, idle.stderr);
    const nodes = JSON.parse(idle.stdout).nodes as Array<{
      name: string;
      role: string;
      state: string;
      gpusAdvertised: number;
      gpusReserved: number;
      runs: unknown[];
    }>;
    assert.deepEqual(
      nodes.map(n => [n.name, n.role, n.state, n.gpusAdvertised, n.gpusReserved, n.runs.length]),
      [
        ['bt-sw-manager', 'manager', 'ready', 0, 0, 0],
        ['bt-sw-worker1', 'worker', 'ready', 2, 0, 0],
        ['bt-sw-worker2', 'worker', 'ready', 2, 0, 0],
      ],
    );
    const run = cli(['run', '--folder', fx.folder, '--commit', fx.human.slice(0, 10), '--role', 'human', ...hostArgs(), '--gpus', '4', ...common()]);
    type Seen = { name: string; gpusReserved: number; runs: Array<{ runId: string; role: string }> };
    let seen: Seen | undefined;
    for (let i = 0; i < 300 && !seen; i++) {
      const s = await cli(['swarm', 'status', ...hostArgs(), '--json']);
      seen = (JSON.parse(s.stdout).nodes as Seen[]).find(n => n.runs.length > 0);
      if (!seen) await new Promise(r => setTimeout(r, 200));
    }
    const text = await cli(['swarm', 'status', ...hostArgs()]);
    const done = await run;
    assert.equal(done.code, 0, done.stderr);
    assert.ok(seen, 'a run showed on a node while it ran');
    assert.match(seen!.name, /^bt-sw-worker[12]$/);
    assert.equal(seen!.gpusReserved, 1);
    assert.equal(seen!.runs[0].role, 'human');
    const record = JSON.parse(readFileSync(path.join(path.dirname(done.stdout.trim()), 'run.json'), 'utf8'));
    assert.equal(record.node, seen!.name, 'the run record names the node the status showed');
    assert.match(text.stdout, /NODE +ROLE +STATE +AVAILABILITY/);
  });

  it('8 single-GPU runs of a campaign use both workers, never more than 2 at once on either; each runs where it landed, its logs complete, its node recorded', async () => {
    const before = new Set(runRecords(fx.folder).map(r => r.runId));
    const w = watchWorkers(cluster.workers);
    const out = await cli([
      'campaign',
      'start',
      '--folder',
      fx.folder,
      '--select',
      `commit=${fx.human.slice(0, 10)},role!=agent`,
      '--repeats',
      '4',
      '--id',
      'c-cluster-8',
      ...hostArgs(),
      '--gpus',
      '4',
      ...common(),
    ]);
    const max = await w.stop();
    assert.equal(out.code, 0, out.stderr);
    const fresh = runRecords(fx.folder).filter(r => !before.has(r.runId));
    assert.equal(fresh.length, 8, JSON.stringify(fresh));
    assert.ok(
      fresh.every(r => r.status === 'succeeded'),
      JSON.stringify(fresh.map(r => [r.runId, r.status])),
    );
    const byNode = new Map<string, number>();
    for (const r of fresh) byNode.set(String(r.node), (byNode.get(String(r.node)) ?? 0) + 1);
    assert.deepEqual([...byNode.keys()].sort(), ['bt-sw-worker1', 'bt-sw-worker2'], `runs per node: ${JSON.stringify([...byNode])}`);
    for (const [name, m] of max) assert.ok(m <= 2, `${name}: at most 2 runs at once (saw ${m})`);
    for (const r of fresh) {
      assert.match(readFileSync(path.join(r.dir, 'logs/benchmark.stdout.log'), 'utf8'), /=+ Serving Benchmark Result =+\nSuccessful requests: +20/);
      assert.match(readFileSync(path.join(r.dir, 'logs/server.stderr.log'), 'utf8'), /Uvicorn running on/);
    }
    assert.deepEqual(await settled(), { services: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 });
  });

  it('swarm check says what each node lacks: the fake workers have no NVIDIA runtime, a worker without its engine label is named with the fix', async () => {
    const w2 = cluster.workers[1];
    const node = cluster.manager.docker.getNode(w2.nodeId);
    const cur = (await node.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> & { Labels?: Record<string, string> } };
    await node.update({ version: cur.Version.Index, ...cur.Spec, Labels: {} });
    try {
      const out = await cli(['swarm', 'check', ...hostArgs(), '--json']);
      assert.equal(out.code, 1, out.stderr);
      const findings = JSON.parse(out.stdout).findings as Array<{ node: string; ok: boolean; what: string; detail: string }>;
      const of = (n: string, what: string) => findings.find(f => f.node === n && f.what === what);
      assert.equal(of('bt-sw-worker1', 'GPUs')?.ok, true);
      assert.equal(of('bt-sw-worker1', 'engine address')?.ok, true);
      assert.equal(of('bt-sw-worker1', 'NVIDIA runtime')?.ok, false);
      assert.match(of('bt-sw-worker1', 'NVIDIA runtime')!.detail, /not installed/);
      assert.equal(of('bt-sw-worker2', 'engine address')?.ok, false);
      assert.match(of('bt-sw-worker2', 'engine address')!.detail, /docker node update --label-add bench-triage\.engine=tcp:\/\/ADDRESS:2376 bt-sw-worker2/);
      assert.equal(of('bt-sw-manager', 'GPUs'), undefined, 'the manager runs no GPU work: nothing asked of it');
    } finally {
      const again = (await node.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> };
      await node.update({ version: again.Version.Index, ...again.Spec, Labels: { 'bench-triage.engine': w2.tcp } });
    }
  });

  it("a worker's engine killed mid-run: the run ends interrupted naming the node, the campaign runs it again on the other worker, and the node that comes back runs nothing twice", async () => {
    const before = new Set(runRecords(fx.folder).map(r => r.runId));
    const id = 'c-cluster-lost';
    const campaign = cli([
      'campaign',
      'start',
      '--folder',
      fx.folder,
      '--select',
      `commit=${fx.human.slice(0, 10)},role=human`,
      '--id',
      id,
      ...hostArgs(),
      '--gpus',
      '4',
      ...common(),
    ]);
    // The run's node, once its server is up (its benchmark phase under way).
    let victim: ClusterNode | undefined;
    for (let i = 0; i < 600 && !victim; i++) {
      const r = runRecords(fx.folder).find(x => !before.has(x.runId) && x.node && x.status === 'running');
      if (
        r &&
        existsSync(path.join(r.dir, 'logs/server.stderr.log')) &&
        /Uvicorn running on/.test(readFileSync(path.join(r.dir, 'logs/server.stderr.log'), 'utf8'))
      )
        victim = cluster.workers.find(w => w.name === r.node);
      else await new Promise(res => setTimeout(res, 200));
    }
    assert.ok(victim, 'the run started on a worker');
    await cluster.kill(victim!);
    const out = await campaign;
    assert.equal(out.code, 0, out.stderr);
    const fresh = runRecords(fx.folder).filter(r => !before.has(r.runId));
    const lost = fresh.filter(r => r.status === 'interrupted');
    const done = fresh.filter(r => r.status === 'succeeded');
    assert.equal(lost.length, 1, JSON.stringify(fresh));
    assert.equal(done.length, 1, JSON.stringify(fresh));
    assert.equal(lost[0].node, victim!.name);
    assert.notEqual(done[0].node, victim!.name, 'run again on the other worker');
    const lostRecord = JSON.parse(readFileSync(path.join(lost[0].dir, 'run.json'), 'utf8'));
    assert.match(lostRecord.error, new RegExp(`node ${victim!.name}`));
    assert.match(readFileSync(path.join(lost[0].dir, 'logs/server.stderr.log'), 'utf8'), /Uvicorn running on/, 'the lost attempt keeps its logs');
    const item = JSON.parse(readFileSync(path.join(fx.folder, '.bench-triage/campaigns', id, 'runs/1.json'), 'utf8'));
    assert.equal(item.state, 'succeeded');
    assert.deepEqual(
      item.earlier.map((e: { runId: string }) => e.runId),
      [lost[0].runId],
    );
    // The node comes back: its old task's container has stopped (it runs nothing again) and the
    // next pass over the swarm (resume, a campaign's start) removes it.
    await cluster.revive(victim!);
    for (let i = 0; i < 120; i++) {
      const ready = ((await cluster.manager.docker.listNodes()) as Array<{ Status?: { State?: string } }>).every(n => n.Status?.State === 'ready');
      const stopped = (await victim!.docker.listContainers({ filters: JSON.stringify({ label: [LABEL], status: ['running'] }) }).catch(() => [1])).length === 0;
      if (ready && stopped) break;
      await new Promise(res => setTimeout(res, 500));
    }
    const resume = await cli(['resume', '--folder', fx.folder, ...hostArgs(), '--gpus', '4']);
    assert.equal(resume.code, 0, resume.stderr);
    const left = await leftovers();
    assert.deepEqual(left, { services: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 });
    assert.equal(runRecords(fx.folder).filter(r => !before.has(r.runId)).length, 2, 'no third attempt');
  });

  it("an image in the swarm's registry (TLS): the task names it by digest, a worker without it pulls it before the run starts, and the pull is timed apart", async () => {
    const repo = `${cluster.registry}/bench-triage/fake-vllm`;
    const m = cluster.manager.docker;
    await m.getImage(IMAGE).tag({ repo, tag: 'test' });
    const pushed = (await m.getImage(`${repo}:test`).push({ authconfig: {} } as never)) as unknown as NodeJS.ReadableStream;
    const events = await new Promise<Array<{ error?: string; aux?: { Digest?: string } }>>((resolve, reject) =>
      m.modem.followProgress(pushed, (err: Error | null, ev: Array<{ error?: string }>) => (err ? reject(err) : resolve(ev))),
    );
    assert.ok(!events.some(e => e.error), JSON.stringify(events.filter(e => e.error)));
    const digest = events.find(e => e.aux?.Digest)?.aux?.Digest;
    assert.match(String(digest), /^sha256:[0-9a-f]{64}$/);
    // Neither worker has it: wherever the run lands, its node pulls it from the registry.
    for (const w of cluster.workers) await w.docker.getImage(IMAGE).remove({ force: true });
    const out = await cli([
      'run',
      '--folder',
      fx.folder,
      '--commit',
      fx.human.slice(0, 10),
      '--role',
      'human',
      ...hostArgs(),
      '--gpus',
      '4',
      ...common(),
      '--image-human',
      `${repo}:test`,
    ]);
    assert.equal(out.code, 0, out.stderr);
    const dir = path.dirname(out.stdout.trim());
    const record = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    assert.equal(record.status, 'succeeded', record.error);
    assert.equal(record.imageRef, `${repo}@${digest}`, 'the task ran the image by registry and digest');
    assert.equal(typeof record.pullS, 'number', 'the pull was timed');
    assert.match(
      readFileSync(path.join(dir, 'logs/runner.log'), 'utf8'),
      new RegExp(`node ${record.node} pulled ${repo.replace(/\./g, '\\.')}@sha256:[0-9a-f]{64} in [0-9.]+ s before the run started`),
    );
    const pulledOn = cluster.workers.find(w => w.name === record.node)!;
    assert.ok(await pulledOn.docker.getImage(`${repo}@${digest}`).inspect(), 'the node has the image now');
  });
});
