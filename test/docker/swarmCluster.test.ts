import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { buildFakeImage, missingPrerequisites } from '../support/dockerEngine';
import { copyImage, NODE_NVIDIA_CONFIG, startCluster, type Cluster, type ClusterNode } from './swarmCluster';
import { makeRunFixture, removeRunFixtures, runRoleArgs, type RunFixture } from '../support/runFixture';
import { campaignStartArgs, fileSecrets, freedFromRecords, labelled, watchGpuHolders, inProcessRuns } from './swarmRuns';
import { splitHostUrl } from '../../src/core/run/hosts';
import type { RunRecord } from '../../src/core/run/records';

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

/** Services, the secrets that carried runs' files, and containers (any state) of runs and of GPU slot holders, per node. */
async function leftovers(): Promise<Record<string, number>> {
  const out: Record<string, number> = { services: await labelled(cluster.manager.docker, 'services'), secrets: await fileSecrets(cluster.manager.docker) };
  for (const n of [cluster.manager, ...cluster.workers]) out[n.name] = await labelled(n.docker, 'containers');
  return out;
}

/**
 * Tasks of these runs not yet ended (a task that ended stays in the manager's store a while as
 * history, with nothing of it left on its node).
 */
async function liveTasks(runIds: ReadonlySet<string>): Promise<number> {
  const tasks = (await cluster.manager.docker.listTasks()) as Array<{
    Spec?: { ContainerSpec?: { Labels?: Record<string, string> } };
    Status?: { State?: string };
  }>;
  const ended = ['complete', 'shutdown', 'failed', 'rejected', 'orphaned', 'remove'];
  return tasks.filter(t => runIds.has(t.Spec?.ContainerSpec?.Labels?.[LABEL] ?? '') && !ended.includes(t.Status?.State ?? '')).length;
}

/** Those tasks, each as its state, desired state, node and error, for a failure's message. */
async function taskStates(runIds: ReadonlySet<string>): Promise<string[]> {
  const tasks = (await cluster.manager.docker.listTasks()) as Array<{
    ServiceID?: string;
    NodeID?: string;
    DesiredState?: string;
    Spec?: { ContainerSpec?: { Labels?: Record<string, string> } };
    Status?: { State?: string; Err?: string; ContainerStatus?: { ContainerID?: string } };
  }>;
  return tasks
    .filter(t => runIds.has(t.Spec?.ContainerSpec?.Labels?.[LABEL] ?? ''))
    .map(
      t =>
        `${t.ServiceID?.slice(0, 12)} ${t.Status?.State}→${t.DesiredState} node ${t.NodeID?.slice(0, 12)} container ${t.Status?.ContainerStatus?.ContainerID?.slice(0, 12) ?? '-'} ${t.Status?.Err ?? ''}`,
    );
}

async function availability(n: ClusterNode, to: 'drain' | 'pause' | 'active'): Promise<void> {
  const node = cluster.manager.docker.getNode(n.nodeId);
  const cur = (await node.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> };
  await node.update({ version: cur.Version.Index, ...cur.Spec, Availability: to });
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
    assert.deepEqual(left, { services: 0, secrets: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 }, 'services or containers left behind');
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
    const w = watchGpuHolders(cluster.workers);
    const out = await cli([
      ...campaignStartArgs({ folder: fx.folder, commit: fx.human, id: 'c-cluster-8', host: hostArgs(), gpus: 4, repeats: 4 }),
      ...common(),
    ]);
    assert.equal(out.code, 0, out.stderr);
    const fresh = runRecords(fx.folder).filter(r => !before.has(r.runId));
    const max = await w.stop(freedFromRecords(fx.folder));
    assert.equal(fresh.length, 8, JSON.stringify(fresh));
    assert.ok(
      fresh.every(r => r.status === 'succeeded'),
      JSON.stringify(fresh.map(r => [r.runId, r.status])),
    );
    const byNode = new Map<string, number>();
    for (const r of fresh) byNode.set(String(r.node), (byNode.get(String(r.node)) ?? 0) + 1);
    assert.deepEqual([...byNode.keys()].sort(), ['bt-sw-worker1', 'bt-sw-worker2'], `runs per node: ${JSON.stringify([...byNode])}`);
    for (const [name, m] of max) assert.ok(m <= 2, `${name}: at most 2 runs held GPUs at once (saw ${m}): ${w.spans()}`);
    // Each run got the GPUs the swarm gave its slot's holder, and no GPU served two runs at once
    // (a run's span ends as its own marker says no process of it is left, or at its death).
    assert.deepEqual(w.gpuProblems(), [], w.spans());
    // Eight runs on four one-GPU slots, all asked for at once: each slot serves two (the four
    // that wait each follow a different run, even when they choose their slots at the same time).
    assert.deepEqual(Object.values(w.runsPerGpu()), [2, 2, 2, 2], `${JSON.stringify(w.runsPerGpu())} ${w.spans()}`);
    // The runs queued behind the first four took their GPUs as the run before them handed them
    // over (its processes gone, its container still there): not after its death.
    const handOvers = w.handOvers();
    assert.ok(handOvers.length >= 4, `runs that followed another on its GPUs: ${JSON.stringify(handOvers)} ${w.spans()}`);
    assert.ok(
      handOvers.some(h => h.died !== null && h.took < h.died),
      `some run took its GPUs before the run before it there had died: ${JSON.stringify(handOvers)}`,
    );
    // A run behind another on its slot got its container only once that one held the GPUs: at the
    // campaign's start, the first runs' containers start on engines not busy with the others'.
    assert.ok(
      handOvers.every(h => h.made !== null && h.made > h.heldBefore),
      `runs made before the run ahead of them held its GPUs: ${JSON.stringify(handOvers)}`,
    );
    // Each run's files, first phase and markers came with its container, as the swarm's secrets its
    // command unpacked: none was put in after the container was made (the logs below are whole).
    assert.deepEqual(w.extractions(), {}, 'archives put into run containers');
    // Each run's record has when it took its GPUs; the four that had a run after them, when they gave them back.
    let gaveBack = 0;
    for (const r of fresh) {
      const rec = JSON.parse(readFileSync(path.join(r.dir, 'run.json'), 'utf8')) as { slotGpus?: { heldAt: string; freedAt: string | null } };
      assert.ok(rec.slotGpus?.heldAt, `${r.runId}: ${JSON.stringify(rec.slotGpus)}`);
      const said = /GPUs given back to the slot at \S+: no process of the run was left/.test(readFileSync(path.join(r.dir, 'logs/runner.log'), 'utf8'));
      assert.equal(said, rec.slotGpus.freedAt !== null, `${r.runId}: the runner log says the give-back its record has`);
      if (rec.slotGpus.freedAt === null) continue;
      gaveBack++;
      assert.ok(rec.slotGpus.freedAt > rec.slotGpus.heldAt, `${r.runId}: ${JSON.stringify(rec.slotGpus)}`);
    }
    assert.ok(gaveBack >= 4, `runs that handed their GPUs over: ${gaveBack}`);
    for (const r of fresh) {
      assert.match(readFileSync(path.join(r.dir, 'logs/benchmark.stdout.log'), 'utf8'), /=+ Serving Benchmark Result =+\nSuccessful requests: +20/);
      assert.equal(readFileSync(path.join(r.dir, 'logs/server.stderr.log'), 'utf8').match(/Uvicorn running on/g)?.length, 1, `${r.runId}: the server ran once`);
    }
    // Each run's first phase was launched by its container as it took its GPUs (no round trip from
    // the run before's death), never again by the runner; the later phases by the runner's exec.
    const firsts = new Set<string>();
    for (const r of fresh) {
      const rec = JSON.parse(readFileSync(path.join(r.dir, 'run.json'), 'utf8')) as { startedAt: string; phases: Array<{ name: string; launchedAt: string }> };
      const first = rec.phases[0];
      firsts.add(first.name);
      assert.equal(first.launchedAt, rec.startedAt, `${r.runId}: its first phase was under way as the container started`);
      assert.match(readFileSync(path.join(r.dir, 'logs/runner.log'), 'utf8'), new RegExp(`${first.name} launched by the container as it took its GPUs`));
    }
    const byExec = w.execLaunches();
    assert.deepEqual(
      byExec.filter(n => firsts.has(n)),
      [],
      `first phases (${[...firsts]}) launched by an exec: ${byExec}`,
    );
    assert.ok(byExec.filter(n => n === 'benchmark').length >= 8, `the benchmark phases were launched by exec: ${byExec}`);
    // Each run's log says how long the swarm held it and how its placement was seen. The four
    // runs queued behind the first four waited for a GPU to free: the runner watches the workers'
    // engines, so such a placement is seen as the node makes its container, not at a later poll.
    const placed = fresh.map(r =>
      /placed after ([\d.]+) s in the cluster's queue \((seen as its node made its container|seen by asking the manager)\)/.exec(
        readFileSync(path.join(r.dir, 'logs/runner.log'), 'utf8'),
      ),
    );
    assert.ok(placed.every(Boolean), placed.map(String).join('\n'));
    const waited = placed.filter(m => Number(m![1]) >= 1);
    assert.ok(waited.length >= 1, `some runs waited for a GPU: ${placed.map(m => m![1]).join(', ')}`);
    assert.ok(
      waited.some(m => m![2] === 'seen as its node made its container'),
      placed.map(m => m![0]).join('\n'),
    );
    assert.deepEqual(await settled(), { services: 0, secrets: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 });
  });

  it("a run waiting behind a long run on one worker moves to the other worker's GPU slot once it frees: withdrawn there before taking the GPUs, run here while the long run goes on, nothing left on either node", async () => {
    // Two GPUs for this process: two slots, the third run lines up behind one of them.
    const h = { label: 'cluster', ...splitHostUrl(`swarm+${cluster.manager.tcp}`), gpus: 2, tls: cluster.certs };
    const { run, holding } = inProcessRuns(h, fx, IMAGE);
    const a = run({ FAKE_VLLM_BENCH_SECONDS: '20' });
    const nodeA = await holding(a.runId);
    // The short run on the other worker: A's paused meanwhile (it keeps its run, takes no new task).
    const paused = cluster.workers.find(w => w.name === nodeA)!;
    await availability(paused, 'pause');
    let b: ReturnType<typeof run>;
    let nodeB: string;
    try {
      b = run({});
      nodeB = await holding(b.runId);
    } finally {
      await availability(paused, 'active');
    }
    assert.notEqual(nodeB, nodeA);
    const c = run({});
    const [ra, rb, rc] = await Promise.all([a.done, b.done, c.done]);
    const log = (r: RunRecord, f = 'runner.log') => readFileSync(path.join(fx.folder, r.plan.resultDir, 'logs', f), 'utf8');
    assert.deepEqual([ra.status, rb.status, rc.status], ['succeeded', 'succeeded', 'succeeded'], JSON.stringify([ra.error, rb.error, rc.error]));
    assert.match(
      log(rc),
      new RegExp(
        `moved to a GPU slot on node ${nodeB} that freed first, after waiting [\\d.]+ s behind a run under way on node ${nodeA} \\(its container there withdrew before taking the GPUs\\)`,
      ),
      log(rc),
    );
    assert.equal(rc.node, nodeB, 'its record names the node it ran on');
    assert.ok(
      rc.slotGpus?.heldAt && rc.endedAt && rc.slotGpus.heldAt > rb.endedAt! && rc.endedAt < ra.endedAt!,
      JSON.stringify({ a: [ra.slotGpus, ra.endedAt], b: [rb.slotGpus, rb.endedAt], c: [rc.slotGpus, rc.endedAt] }),
    );
    assert.equal(log(rc, 'server.stderr.log').match(/Uvicorn running on/g)?.length, 1, 'its server ran once');
    assert.match(log(rc, 'benchmark.stdout.log'), /=+ Serving Benchmark Result =+\nSuccessful requests: +20/);
    console.log(
      `      B ended at ${rb.endedAt}, C took its GPUs on ${nodeB} at ${rc.slotGpus!.heldAt}: ${Date.parse(rc.slotGpus!.heldAt) - Date.parse(rb.endedAt!)} ms`,
    );
    assert.deepEqual(await settled(), { services: 0, secrets: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 });
  });

  it("swarm check says what each node lacks: no NVIDIA runtime on the fake workers, each node's own swarm-resource read from its file, a worker without its engine label named with the fix", async () => {
    const [w1, w2] = cluster.workers;
    const shipped = readFileSync(w1.nvidiaConfig, 'utf8');
    writeFileSync(w1.nvidiaConfig, shipped.replace('#swarm-resource = "DOCKER_RESOURCE_GPU"', 'swarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU"'));
    type Finding = { node: string; ok: boolean; what: string; detail: string };
    const check = async (...extra: string[]) => {
      const out = await cli(['swarm', 'check', ...hostArgs(), '--json', ...extra]);
      assert.equal(out.code, 1, out.stderr);
      const findings = JSON.parse(out.stdout).findings as Finding[];
      return (n: string, what: string) => findings.find(f => f.node === n && f.what === what);
    };
    try {
      const of = await check('--nvidia-config', NODE_NVIDIA_CONFIG);
      assert.equal(of(w1.name, 'GPUs')?.ok, true);
      assert.equal(of(w1.name, 'engine address')?.ok, true);
      assert.equal(of(w1.name, 'NVIDIA runtime')?.ok, false);
      assert.match(of(w1.name, 'NVIDIA runtime')!.detail, /not installed/);
      assert.deepEqual(of(w1.name, 'swarm-resource'), {
        node: w1.name,
        ok: true,
        what: 'swarm-resource',
        detail: 'swarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU" (line 2)',
      });
      assert.equal(of(w2.name, 'swarm-resource')?.ok, false);
      assert.match(of(w2.name, 'swarm-resource')!.detail, /commented out \(line 2\).*swarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU"/);
      assert.equal(of('bt-sw-manager', 'GPUs'), undefined, 'the manager runs no GPU work: nothing asked of it');
      // The default path, absent on these nodes: said, and nothing made on the node or left running.
      const dflt = await check();
      assert.match(dflt(w1.name, 'swarm-resource')!.detail, /no \/etc\/nvidia-container-runtime\/config\.toml on the node/);
      assert.equal(existsSync('/etc/nvidia-container-runtime'), false, 'no folder made on the machine');
      for (const w of cluster.workers)
        assert.deepEqual(await w.docker.listContainers({ all: true, filters: JSON.stringify({ label: ['bench-triage.check'] }) }), []);
    } finally {
      writeFileSync(w1.nvidiaConfig, shipped);
    }
    const node = cluster.manager.docker.getNode(w2.nodeId);
    const cur = (await node.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> & { Labels?: Record<string, string> } };
    await node.update({ version: cur.Version.Index, ...cur.Spec, Labels: {} });
    try {
      const of = await check('--nvidia-config', NODE_NVIDIA_CONFIG);
      assert.equal(of(w2.name, 'engine address')?.ok, false);
      assert.match(of(w2.name, 'engine address')!.detail, /docker node update --label-add bench-triage\.engine=tcp:\/\/ADDRESS:2376 bt-sw-worker2/);
    } finally {
      const again = (await node.inspect()) as { Version: { Index: number }; Spec: Record<string, unknown> };
      await node.update({ version: again.Version.Index, ...again.Spec, Labels: { 'bench-triage.engine': w2.tcp } });
    }
  });

  it("a worker's engine killed mid-run: the run ends interrupted naming the node, the campaign runs it again on the other worker, and the node that comes back runs nothing twice", async () => {
    const before = new Set(runRecords(fx.folder).map(r => r.runId));
    const id = 'c-cluster-lost';
    const campaign = cli([...campaignStartArgs({ folder: fx.folder, commit: fx.human, id: id, host: hostArgs(), gpus: 4, roles: 'role=human' }), ...common()]);
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
    assert.deepEqual(left, { services: 0, secrets: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 });
    assert.equal(runRecords(fx.folder).filter(r => !before.has(r.runId)).length, 2, 'no third attempt');
  });

  it('a worker drained mid-campaign: the run it held ends interrupted (or finishes) and runs again elsewhere, no run lands on it after the drain, nothing is left', async () => {
    const before = new Set(runRecords(fx.folder).map(r => r.runId));
    const id = 'c-cluster-drain';
    const campaign = cli([
      ...campaignStartArgs({ folder: fx.folder, commit: fx.human, id: id, host: hostArgs(), gpus: 4, repeats: 2 }),
      ...common(),
      // Benchmarks long enough to be under way when the drain comes.
      '--env',
      'FAKE_VLLM_BENCH_SECONDS=10',
    ]);
    let victim: ClusterNode | undefined;
    for (let i = 0; i < 600 && !victim; i++) {
      const r = runRecords(fx.folder).find(x => !before.has(x.runId) && x.node && x.status === 'running');
      if (
        r &&
        /Uvicorn running on/.test(
          existsSync(path.join(r.dir, 'logs/server.stderr.log')) ? readFileSync(path.join(r.dir, 'logs/server.stderr.log'), 'utf8') : '',
        )
      )
        victim = cluster.workers.find(w => w.name === r.node);
      else await new Promise(res => setTimeout(res, 200));
    }
    assert.ok(victim, 'a run started on a worker');
    const atDrain = new Set(runRecords(fx.folder).map(r => r.runId));
    await availability(victim!, 'drain');
    try {
      const out = await campaign;
      assert.equal(out.code, 0, out.stderr);
      const fresh = runRecords(fx.folder).filter(r => !before.has(r.runId));
      const items = readdirSync(path.join(fx.folder, '.bench-triage/campaigns', id, 'runs')).map(
        f => JSON.parse(readFileSync(path.join(fx.folder, '.bench-triage/campaigns', id, 'runs', f), 'utf8')) as { state: string },
      );
      assert.deepEqual(
        items.map(i => i.state),
        ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
        JSON.stringify(fresh.map(r => [r.runId, r.node, r.status])),
      );
      for (const r of fresh.filter(x => !atDrain.has(x.runId))) assert.notEqual(r.node, victim!.name, `${r.runId} started after the drain on the drained node`);
      const held = fresh.filter(r => r.node === victim!.name);
      assert.ok(held.length >= 1);
      for (const r of held) {
        const rec = JSON.parse(readFileSync(path.join(r.dir, 'run.json'), 'utf8'));
        assert.ok(
          r.status === 'succeeded' || (r.status === 'interrupted' && new RegExp(`node ${victim!.name} was drained`).test(rec.error)),
          `${r.status}: ${rec.error}`,
        );
      }
      assert.ok(
        held.some(r => r.status === 'interrupted'),
        `the run the drain stopped is interrupted, not failed: ${JSON.stringify(held.map(r => [r.runId, r.status, JSON.parse(readFileSync(path.join(r.dir, 'run.json'), 'utf8')).error]))}`,
      );
      assert.deepEqual(await settled(), { services: 0, secrets: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0 });
    } finally {
      await availability(victim!, 'active');
    }
  });

  it('cancel a campaign: within 2 s of the request no task, service or container of it is on any node', async () => {
    const id = 'c-cluster-cancel';
    const campaign = cli([
      ...campaignStartArgs({ folder: fx.folder, commit: fx.human, id: id, host: hostArgs(), gpus: 4, repeats: 3 }),
      ...common(),
      '--env',
      'FAKE_VLLM_BENCH_SECONDS=60',
    ]);
    for (let i = 0; i < 600; i++) {
      const n = (await Promise.all(cluster.workers.map(w => running(w.docker)))).reduce((a, b) => a + b, 0);
      if (n >= 3) break;
      await new Promise(res => setTimeout(res, 200));
    }
    const before = await leftovers();
    assert.ok(before.services >= 3, `runs were under way when cancelled: ${JSON.stringify(before)}`);
    assert.ok(before.secrets >= 3, `the runs under way had their files as secrets: ${JSON.stringify(before)}`);
    const asked = await cli(['campaign', 'cancel', '--folder', fx.folder, '--id', id]);
    const t0 = Date.now();
    assert.equal(asked.code, 0, asked.stderr);
    const ids = new Set(runRecords(fx.folder).map(r => r.runId));
    let left = await leftovers();
    let tasks = await liveTasks(ids);
    // What was left as time went on, for the failure message (which part was slow).
    const seen: string[] = [];
    const note = () => {
      const s = JSON.stringify({ ...left, tasks });
      if (seen.at(-1)?.endsWith(s) !== true) seen.push(`${Date.now() - t0} ms ${s}`);
    };
    note();
    while ((Object.entries(left).some(([k, v]) => k !== 'secrets' && v) || tasks) && Date.now() - t0 < 10_000) {
      await new Promise(res => setTimeout(res, 50));
      [left, tasks] = [await leftovers(), await liveTasks(ids)];
      note();
    }
    const took = Date.now() - t0;
    // The 2 s are for what runs or holds GPUs; the secrets that carried the runs' files go as their services do, checked below.
    const { secrets: _secrets, ...gone } = left;
    if (tasks) seen.push(...(await taskStates(ids)));
    assert.deepEqual({ ...gone, tasks }, { services: 0, 'bt-sw-manager': 0, 'bt-sw-worker1': 0, 'bt-sw-worker2': 0, tasks: 0 }, seen.join('\n'));
    assert.ok(took <= 2000, `the campaign's tasks, services and containers were gone ${took} ms after the cancel (at most 2000):\n${seen.join('\n')}`);
    const out = await campaign;
    assert.equal(out.code, 1, 'a cancelled campaign exits 1');
    assert.equal(await fileSecrets(cluster.manager.docker), 0, "no secret of the runs' files is left once the campaign has ended");
    const states = readdirSync(path.join(fx.folder, '.bench-triage/campaigns', id, 'runs')).map(
      f => (JSON.parse(readFileSync(path.join(fx.folder, '.bench-triage/campaigns', id, 'runs', f), 'utf8')) as { state: string }).state,
    );
    assert.ok(
      states.every(s => s === 'cancelled'),
      JSON.stringify(states),
    );
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
    const out = await cli([...runRoleArgs(fx, 'human'), ...hostArgs(), '--gpus', '4', ...common(), '--image-human', `${repo}:test`]);
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

  it('an image built with --registry on the manager is pushed there, and the worker its first run lands on pulls it by that digest before the run starts', async () => {
    const template = 'bench-triage/fake-human:{commit12}';
    const tag = `${cluster.registry}/bench-triage/fake-human:${fx.human.slice(0, 12)}`;
    const built = await cli([
      'build',
      '--folder',
      fx.folder,
      '--commit',
      fx.human.slice(0, 10),
      '--role',
      'human',
      ...hostArgs(),
      '--registry',
      cluster.registry,
      '--checkout',
      fx.checkout,
      '--human-base',
      IMAGE,
      '--image-human',
      template,
      '--json',
    ]);
    assert.equal(built.code, 0, built.stderr);
    const rec = JSON.parse(built.stdout) as { status: string; tag: string; pushed?: { ref: string; s: number }; dir: string };
    assert.equal(rec.status, 'succeeded');
    assert.equal(rec.tag, tag, 'the tag names the registry');
    assert.match(String(rec.pushed?.ref), new RegExp(`^${tag.replace(/[.]/g, '\\.').replace(/:[^:/]+$/, '')}@sha256:[0-9a-f]{64}$`));
    assert.equal(typeof rec.pushed?.s, 'number');
    assert.match(readFileSync(path.join(rec.dir, 'build.log'), 'utf8'), /pushed .*@sha256:[0-9a-f]{64} in [0-9.]+ s/);
    for (const w of cluster.workers) await assert.rejects(w.docker.getImage(tag).inspect(), /no such image|404/i, `${w.name} has no copy before its run`);
    const out = await cli([
      ...runRoleArgs(fx, 'human'),
      ...hostArgs(),
      '--gpus',
      '4',
      '--registry',
      cluster.registry,
      '--checkout',
      fx.checkout,
      '--image-human',
      template,
      '--image-baseline',
      IMAGE,
    ]);
    assert.equal(out.code, 0, out.stderr);
    const dir = path.dirname(out.stdout.trim());
    const run = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    assert.equal(run.status, 'succeeded', run.error);
    assert.equal(run.imageRef, rec.pushed!.ref, 'the run ran the bytes the build pushed');
    assert.match(String(run.node), /^bt-sw-worker[12]$/, 'built on the manager, run on a worker');
    assert.equal(typeof run.pullS, 'number');
    assert.match(
      readFileSync(path.join(dir, 'logs/runner.log'), 'utf8'),
      new RegExp(`node ${run.node} pulled \\S+@sha256:[0-9a-f]{64} in [0-9.]+ s before the run started`),
    );
  });
});
