import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import * as path from 'node:path';
import Docker from 'dockerode';
import { buildFakeImage, missingPrerequisites, startEngine, type Engine } from '../support/dockerEngine';
import { makeRunFixture, removeRunFixtures, runRoleArgs, type RunFixture } from '../support/runFixture';
import { campaignStartArgs, fileSecrets, freedFromRecords, labelled, runContainers, SLOT_LABEL, watchGpuHolders, inProcessRuns } from './swarmRuns';
import { splitHostUrl } from '../../src/core/run/hosts';
import type { SwarmRuntime } from '../../src/runner/swarmRuntime';
import type { RunRecord } from '../../src/core/run/records';
import { ARMED, WITHDRAW_SIGNAL, WITHDRAWN_EXIT } from '../../src/runner/slotScripts';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const IMAGE = 'bench-triage/fake-vllm:test';
const LABEL = 'bench-triage.run-id';

let engine: Engine;
let docker: Docker;
let fx: RunFixture;
const swarmHost = () => `swarm+${engine.unix}`;

/**
 * The swarm's view: how many run containers held GPUs at once (watchGpuHolders), and whether the
 * scheduler held a task (a GPU slot's holder) for lack of GPUs.
 */
function watch() {
  const holders = watchGpuHolders([{ name: 'node', docker }]);
  let held = false;
  let stopped = false;
  // Each slot holder's network (a holder needs none: on the host's, its container starts without a sandbox of its own).
  const holderNetworks = new Map<string, string>();
  const loop = (async () => {
    while (!stopped) {
      const tasks = (await docker.listTasks().catch(() => [])) as Array<{
        Status?: { State?: string; Err?: string };
      }>;
      if (tasks.some(t => t.Status?.State === 'pending' && /insufficient resources/i.test(t.Status.Err ?? ''))) held = true;
      const slots = (await docker.listContainers({ all: true, filters: JSON.stringify({ label: [SLOT_LABEL] }) }).catch(() => [])) as Array<{
        Id: string;
        HostConfig?: { NetworkMode?: string };
      }>;
      for (const c of slots) holderNetworks.set(c.Id, c.HostConfig?.NetworkMode ?? '');
      await new Promise(r => setTimeout(r, 150));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { max: (await holders.stop(freedFromRecords(fx.folder))).get('node')!, held, holderNetworks: [...holderNetworks.values()] };
    },
  };
}

function cliAsync(args: string[]): { proc: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, DOCKER_HOST: '' } });
  let stdout = '',
    stderr = '';
  proc.stdout!.on('data', d => (stdout += d));
  proc.stderr!.on('data', d => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>(resolve => proc.on('exit', code => resolve({ code, stdout, stderr })));
  return { proc, done };
}

/** A log of an in-process run, whole. */
const logOf = (r: RunRecord, file: string) => readFileSync(path.join(fx.folder, r.plan.resultDir, 'logs', file), 'utf8');

/**
 * On the 2-GPU swarm, in-process: A, a run of about `seconds`, holding its GPU, then B, a short one,
 * holding the other. A run asked for next lines up behind the run that began first (A), and B's
 * slot frees long before A's.
 */
async function longAndShort(seconds: number) {
  const { run, holding } = inProcessRuns({ label: 'swarm', ...splitHostUrl(swarmHost()), gpus: 2 }, fx, IMAGE);
  const a = run({ FAKE_VLLM_BENCH_SECONDS: String(seconds) });
  await holding(a.runId);
  const b = run({});
  await holding(b.runId);
  return { a, b, run };
}

/** Holds every answer of the runtime's manager about a node until `until` (as a loaded manager would give it late). */
function slowNodeAnswers(runtime: SwarmRuntime, until: number): { count: () => number; restore: () => void } {
  const manager = (runtime as unknown as { docker: Docker }).docker;
  const getNode = manager.getNode.bind(manager);
  let asked = 0;
  manager.getNode = (id: string) => {
    const node = getNode(id);
    const inspect = node.inspect.bind(node) as (o?: { abortSignal?: AbortSignal }) => Promise<unknown>;
    node.inspect = (async (o?: { abortSignal?: AbortSignal }) => {
      asked++;
      // As a slow answer would, it ends at once when its caller gives up.
      await new Promise<void>(r => {
        const t = setTimeout(r, Math.max(0, until - Date.now()));
        o?.abortSignal?.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
      });
      return inspect(o);
    }) as typeof node.inspect;
    return node;
  };
  return { count: () => asked, restore: () => void (manager.getNode = getNode) };
}

const common = () => ['--checkout', fx.checkout, '--image-human', IMAGE, '--image-baseline', IMAGE];

/** A CLI campaign of 4 runs (both roles, twice) on the 2-GPU swarm. */
const campaignStart = (id: string) =>
  cliAsync([...campaignStartArgs({ folder: fx.folder, commit: fx.human, id, host: ['--host', swarmHost()], gpus: 2, repeats: 2 }), ...common()]);

/** Services and containers of runs and of GPU slot holders. */
async function leftovers(): Promise<{ services: number; containers: number }> {
  return { services: await labelled(docker, 'services'), containers: await labelled(docker, 'containers') };
}

async function settle(): Promise<void> {
  // Removing a service removes its task container shortly after.
  for (let i = 0; i < 60; i++) {
    const l = await leftovers();
    if (!l.services && !l.containers) return;
    await new Promise(r => setTimeout(r, 250));
  }
}

function resultsOf(folder: string): Array<{ dir: string; status: string; runId: string }> {
  const out: Array<{ dir: string; status: string; runId: string }> = [];
  const root = path.join(folder, '.bench-triage/runs');
  if (!existsSync(root)) return out;
  for (const c of readdirSync(root))
    for (const role of readdirSync(path.join(root, c)))
      for (const id of readdirSync(path.join(root, c, role))) {
        const f = path.join(root, c, role, id, 'run.json');
        if (existsSync(f)) out.push({ dir: path.join(root, c, role, id), status: JSON.parse(readFileSync(f, 'utf8')).status, runId: id });
      }
  return out;
}

describe('Docker Swarm as the cluster backend (a one-node swarm with 2 fake NVIDIA-GPU generic resources)', function () {
  this.timeout(300_000);

  before(async function () {
    const missing = missingPrerequisites();
    if (missing.length) {
      if (process.env.CI === 'true') throw new Error(`Docker suite prerequisites missing: ${missing.join('; ')}`);
      this.skip();
    }
    engine = await startEngine();
    docker = new Docker({ socketPath: engine.unix.slice(7) });
    await docker.swarmLeave({ force: true }).catch(() => {});
    await docker.swarmInit({ ListenAddr: `${engine.address}:2377`, AdvertiseAddr: engine.address });
    buildFakeImage(engine.unix);
    fx = makeRunFixture();
  });

  after(async function () {
    removeRunFixtures();
    if (!engine) return;
    await settle();
    const left = await leftovers();
    await docker.swarmLeave({ force: true }).catch(() => {});
    await engine.stop();
    assert.deepEqual(left, { services: 0, containers: 0 }, 'services or containers left behind');
  });

  it('the node advertises 2 NVIDIA-GPU generic resources', async () => {
    const [node] = await docker.listNodes();
    const res =
      (
        node as {
          Description?: {
            Resources?: { GenericResources?: Array<{ DiscreteResourceSpec?: { Kind: string; Value: number }; NamedResourceSpec?: { Kind: string } }> };
          };
        }
      ).Description?.Resources?.GenericResources ?? [];
    assert.equal(res.filter(r => (r.NamedResourceSpec ?? r.DiscreteResourceSpec)?.Kind === 'NVIDIA-GPU').length, 2, JSON.stringify(res));
  });

  it('3 single-GPU runs: never more than 2 at once, the third held by the swarm until one ends; every log complete; no service left', async () => {
    // The process would allow 3 at once (--gpus 3): only the swarm's GPU reservations hold the third.
    const w = watch();
    const r = cliAsync(['run', '--folder', fx.folder, '--commit', fx.human.slice(0, 10), '--role', 'all', '--host', swarmHost(), '--gpus', '3', ...common()]);
    const out = await r.done;
    const seen = await w.stop();
    assert.equal(out.code, 0, out.stderr);
    assert.ok(seen.max <= 2, `at most 2 run containers held GPUs at once (saw ${seen.max})`);
    assert.equal(seen.max, 2, 'two ran together');
    assert.ok(seen.held, 'the swarm held a task: "insufficient resources"');
    assert.ok(seen.holderNetworks.length >= 2, `the slots' holders were seen (${seen.holderNetworks.length})`);
    assert.deepEqual([...new Set(seen.holderNetworks)], ['host'], 'every holder on the host network');
    const results = out.stdout.trim().split('\n');
    assert.equal(results.length, 3);
    for (const f of results) {
      const res = JSON.parse(readFileSync(f, 'utf8'));
      assert.equal(res.status, 'succeeded', `${res.role}: ${res.error}`);
      const dir = path.dirname(f);
      assert.match(readFileSync(path.join(dir, 'logs/benchmark.stdout.log'), 'utf8'), /=+ Serving Benchmark Result =+\nSuccessful requests: +20/);
      assert.match(readFileSync(path.join(dir, 'logs/server.stderr.log'), 'utf8'), /Uvicorn running on/);
    }
    await settle();
    assert.deepEqual(await leftovers(), { services: 0, containers: 0 });
  });

  it('two independent CLI processes share the 2-GPU swarm: 4 runs, never more than 2 at once', async () => {
    const before = resultsOf(fx.folder).length;
    const w = watch();
    const args = (id: string) => [...campaignStartArgs({ folder: fx.folder, commit: fx.human, id, host: ['--host', swarmHost()], gpus: 2 }), ...common()];
    const a = cliAsync(args('c-two-a'));
    const b = cliAsync(args('c-two-b'));
    const [ra, rb] = await Promise.all([a.done, b.done]);
    const seen = await w.stop();
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.ok(seen.max <= 2, `at most 2 at once across both processes (saw ${seen.max})`);
    assert.ok(seen.held, 'the swarm held the GPU slots of the process that found no free GPU');
    assert.equal(resultsOf(fx.folder).length - before, 4);
  });

  it('a run waiting behind a long run on its GPU slot moves to a slot that frees first: it withdraws before taking the GPUs, runs there while the long run goes on, its logs whole, nothing left', async () => {
    const { a, b, run } = await longAndShort(16);
    const c = run({});
    const [ra, rb, rc] = await Promise.all([a.done, b.done, c.done]);
    const log = (r: RunRecord) => logOf(r, 'runner.log');
    assert.deepEqual([ra.status, rb.status, rc.status], ['succeeded', 'succeeded', 'succeeded'], JSON.stringify([ra.error, rb.error, rc.error]));
    assert.match(
      log(rc),
      /moved to a GPU slot on node \S+ that freed first, after waiting [\d.]+ s behind a run under way on node \S+ \(its container there withdrew before taking the GPUs\)/,
      log(rc),
    );
    assert.doesNotMatch(log(ra) + log(rb), /moved to a GPU slot/);
    // C took its GPUs and ended while A still ran: it did not wait for A's GPUs.
    assert.ok(
      rc.slotGpus?.heldAt && ra.endedAt && rc.endedAt && rc.slotGpus.heldAt > rb.endedAt! && rc.endedAt < ra.endedAt,
      JSON.stringify({ a: [ra.slotGpus, ra.endedAt], b: [rb.slotGpus, rb.endedAt], c: [rc.slotGpus, rc.endedAt] }),
    );
    // Its withdrawn container launched nothing: its server ran once, in the container of its new slot.
    assert.equal(logOf(rc, 'server.stderr.log').match(/Uvicorn running on/g)?.length, 1);
    assert.match(logOf(rc, 'benchmark.stdout.log'), /=+ Serving Benchmark Result =+\nSuccessful requests: +20/);
    // What the move cost the freed GPU, by the runs' own records (for the notes, not a timing assertion).
    console.log(
      `      B ended at ${rb.endedAt}, C took its GPUs at ${rc.slotGpus!.heldAt}: ${Date.parse(rc.slotGpus!.heldAt) - Date.parse(rb.endedAt!)} ms; A ended ${Date.parse(ra.endedAt) - Date.parse(rc.endedAt)} ms after C`,
    );
    await settle();
    assert.deepEqual({ ...(await leftovers()), secrets: await fileSecrets(docker) }, { services: 0, containers: 0, secrets: 0 });
  });

  it("a run given a slot as the slot's linger ends (the manager slow to answer about its node) keeps it: it runs there, the slot is not given back under it", async () => {
    const { run, runtime } = inProcessRuns({ label: 'swarm', ...splitHostUrl(swarmHost()), gpus: 2 }, fx, IMAGE);
    const holders = async () => (await docker.listServices({ filters: JSON.stringify({ label: [SLOT_LABEL] }) })).map(x => x.ID).sort();
    const ra = await run({}).done;
    assert.equal(ra.status, 'succeeded', ra.error ?? '');
    // A's slot lingers 2 s from its release (before A's end) for a next run. Every answer of the
    // manager about a node now comes after that, as on a loaded manager: B, given A's slot, looks
    // at its node while the linger ends.
    const lingerOver = Date.now() + 3000;
    const aSlot = await holders();
    assert.equal(aSlot.length, 1, "A's slot lingers");
    // After the idle slot's own look at its node (0.4 s after its release, for a run to move there).
    await new Promise(r => setTimeout(r, 600));
    const slow = slowNodeAnswers(runtime, lingerOver);
    try {
      const rb = await run({}).done;
      assert.ok(slow.count() > 0, "B's choice of slot asked about its node");
      assert.equal(rb.status, 'succeeded', rb.error ?? '');
      assert.doesNotMatch(logOf(rb, 'runner.log'), /was lost/);
      // It ran on A's slot: no other holder was made, and A's lingers again after B.
      assert.deepEqual(await holders(), aSlot);
    } finally {
      slow.restore();
    }
    await new Promise(r => setTimeout(r, 3000));
    await settle();
    assert.deepEqual({ ...(await leftovers()), secrets: await fileSecrets(docker) }, { services: 0, containers: 0, secrets: 0 });
  });

  it("a run cancelled while the manager is slow to answer about its slot's node ends cancelled and leaves the slot: the next run is not held behind it, nothing is left", async () => {
    const { run, runtime } = inProcessRuns({ label: 'swarm', ...splitHostUrl(swarmHost()), gpus: 2 }, fx, IMAGE);
    const ra = await run({}).done;
    assert.equal(ra.status, 'succeeded', ra.error ?? '');
    // After the idle slot's own look at its node (0.4 s after its release): the next look is B's.
    await new Promise(r => setTimeout(r, 600));
    const slow = slowNodeAnswers(runtime, Date.now() + 6000);
    const cancel = new AbortController();
    let rb: RunRecord;
    try {
      const b = run({}, cancel.signal);
      // B is given A's lingering slot and waits for the manager's answer about its node.
      for (let i = 0; i < 100 && !slow.count(); i++) await new Promise(r => setTimeout(r, 50));
      assert.ok(slow.count() > 0, "B asked about its slot's node");
      cancel.abort();
      rb = await b.done;
    } finally {
      slow.restore();
    }
    assert.equal(rb.status, 'cancelled', rb.error ?? '');
    // A run kept in the slot's line would hold it for good, and C would wait behind it.
    const rc = await run({}).done;
    assert.equal(rc.status, 'succeeded', rc.error ?? '');
    await new Promise(r => setTimeout(r, 3000));
    await settle();
    assert.deepEqual({ ...(await leftovers()), secrets: await fileSecrets(docker) }, { services: 0, containers: 0, secrets: 0 });
  });

  it('a run cancelled as it moves to a slot that freed first: it ends cancelled, the run ahead of it is untouched, and no slot, service, container or secret is left once that run ends', async () => {
    const { a, b, run } = await longAndShort(14);
    const cancel = new AbortController();
    const c = run({}, cancel.signal);
    // B's slot frees as B ends; C is offered it 0.4 s later and moves within about 1.5 s: the
    // cancel comes in between (withdrawing, or being pinned anew).
    const rb = await b.done;
    await new Promise(r => setTimeout(r, 700));
    cancel.abort();
    const [ra, rc] = await Promise.all([a.done, c.done]);
    assert.equal(rb.status, 'succeeded', rb.error ?? '');
    assert.equal(rc.status, 'cancelled', rc.error ?? '');
    assert.equal(ra.status, 'succeeded', ra.error ?? '');
    assert.equal(logOf(ra, 'server.stderr.log').match(/Uvicorn running on/g)?.length, 1, "A's server ran once");
    // Its slots go back to the swarm two seconds after their last run (a slot that kept a run that
    // is gone would be renewed for the process's life).
    await new Promise(r => setTimeout(r, 3000));
    await settle();
    assert.deepEqual({ ...(await leftovers()), secrets: await fileSecrets(docker) }, { services: 0, containers: 0, secrets: 0 });
  });

  it('a CLI killed mid-campaign while a run waits in the swarm for a GPU: campaign resume completes it (the waiting run again, its attempt kept), no run done twice, nothing orphaned', async () => {
    const before = new Set(resultsOf(fx.folder).map(r => r.runId));
    const id = 'c-killed';
    const start = campaignStart(id);
    const runsDir = path.join(fx.folder, '.bench-triage/campaigns', id, 'runs');
    // Kill it once two runs are under way.
    for (let i = 0; i < 600; i++) {
      // A record being written (its temporary beside it) is read at the next look.
      const states = existsSync(runsDir)
        ? readdirSync(runsDir)
            .filter(f => /^\d+\.json$/.test(f))
            .map(f => {
              try {
                return JSON.parse(readFileSync(path.join(runsDir, f), 'utf8')).state as string;
              } catch {
                return null;
              }
            })
        : [];
      if (states.filter(s => s === 'running').length >= 2) break;
      await new Promise(r => setTimeout(r, 200));
    }
    // A swarm takes a run more than its GPUs per GPU: such a run is placed on a slot and waits for
    // the GPUs of the run before it there (the two running hold theirs until a runner removes them).
    let waiting = false;
    for (let i = 0; i < 100 && !waiting; i++) {
      waiting = (await runContainers(docker)).waiting > 0;
      if (!waiting) await new Promise(r => setTimeout(r, 200));
    }
    assert.ok(waiting, "a third run waited for its slot's GPUs when the CLI was killed");
    // At once: the two placed runs may still be getting their files (killed then, they ran nothing either).
    start.proc.kill('SIGKILL');
    await start.done;
    const resume = cliAsync(['campaign', 'resume', '--folder', fx.folder, '--id', id, '--host', swarmHost(), '--gpus', '2', ...common()]);
    const out = await resume.done;
    const items = readdirSync(runsDir)
      .filter(f => /^\d+\.json$/.test(f))
      .map(f => JSON.parse(readFileSync(path.join(runsDir, f), 'utf8')));
    const why = resultsOf(fx.folder).map(r => [r.runId, r.status, JSON.parse(readFileSync(path.join(r.dir, 'run.json'), 'utf8')).error]);
    assert.equal(out.code, 0, `${out.stderr}\n${JSON.stringify(items.map(i => [i.n, i.state, i.runId]))}\n${JSON.stringify(why)}`);
    assert.equal(items.length, 4);
    assert.ok(
      items.every(i => i.state === 'succeeded'),
      JSON.stringify(items.map(i => [i.n, i.state, i.error])),
    );
    const fresh = resultsOf(fx.folder).filter(r => !before.has(r.runId));
    // A run whose task still waited in the swarm (a swarm takes one run more than its GPUs) ran
    // nothing: that attempt is kept, interrupted, and named in its item; the item ran again.
    const earlier = items.flatMap(i => (i.earlier ?? []) as Array<{ runId: string; error: string }>);
    const succeeded = fresh.filter(r => r.status === 'succeeded');
    assert.equal(succeeded.length, 4, `one run per campaign run, none twice: ${fresh.map(r => `${r.runId} ${r.status}`).join(', ')}`);
    assert.deepEqual(new Set(succeeded.map(r => r.runId)), new Set(items.map(i => i.runId)));
    assert.deepEqual(
      fresh
        .filter(r => r.status !== 'succeeded')
        .map(r => `${r.runId} ${r.status}`)
        .sort(),
      earlier.map(e => `${e.runId} interrupted`).sort(),
    );
    // The run waiting in the swarm ran again; the two placed were re-attached, or ran again if
    // they were still getting their files.
    assert.ok(
      earlier.some(e => /it waited for its GPUs|state pending/.test(e.error)),
      JSON.stringify(earlier),
    );
    for (const e of earlier) assert.match(e.error, /still waiting to start \(.+\) when the process driving it ended: nothing ran/);
    await settle();
    const left = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [LABEL] }) });
    assert.deepEqual(
      await leftovers(),
      { services: 0, containers: 0 },
      JSON.stringify({
        left: left.map(c => [c.Names, c.State, c.Status, c.Labels['com.docker.swarm.service.id'], c.Labels['com.docker.swarm.task.id']]),
        runs: resultsOf(fx.folder).map(r => [r.runId, r.status]),
        tasks: (await docker.listTasks()).map(t => [t.ID, t.ServiceID, t.DesiredState, t.Status?.State, t.Status?.Timestamp, t.CreatedAt]),
      }),
    );
  });
  it('a CLI killed as it moves a run (the run withdrew from its slot, not yet pinned anew): resume says nothing of it ran and runs it again; nothing left', async () => {
    const before = new Set(resultsOf(fx.folder).map(r => r.runId));
    const id = 'c-withdrawn';
    const start = campaignStart(id);
    // Two runs hold the GPUs and a third waits in line behind one of them.
    let seen = { holding: 0, waiting: 0, waitingIds: [] as string[] };
    let ended: { code: number | null; stderr: string } | null = null;
    void start.done.then(d => (ended = d));
    for (let i = 0; i < 600 && !ended && !(seen.holding === 2 && seen.waiting >= 1); i++) {
      seen = await runContainers(docker);
      if (!(seen.holding === 2 && seen.waiting >= 1)) await new Promise(r => setTimeout(r, 100));
    }
    assert.ok(seen.holding === 2 && seen.waiting >= 1, JSON.stringify({ seen, ended }));
    // The process dies as it moves the run: its withdrawal was asked (as the runtime asks it, the
    // signal to the run's command), the new pin never came.
    start.proc.kill('SIGKILL');
    await start.done;
    const waiting = docker.getContainer(seen.waitingIds[0]);
    const runId = (await waiting.inspect()).Config.Labels[LABEL];
    // A run is offered a move once its command waits for its turn (armed): before its handler is
    // set, the container's first process would not even see the signal.
    let armed = false;
    for (let i = 0; i < 100 && !armed; i++) {
      armed = await waiting.infoArchive({ path: ARMED }).then(
        () => true,
        () => false,
      );
      if (!armed) await new Promise(r => setTimeout(r, 100));
    }
    assert.ok(armed, 'the waiting run armed');
    await waiting.kill({ signal: WITHDRAW_SIGNAL });
    let exit: number | null = null;
    for (let i = 0; i < 100 && exit === null; i++) {
      const st = (await waiting.inspect().catch(() => null))?.State;
      if (st && !st.Running) exit = st.ExitCode;
      else await new Promise(r => setTimeout(r, 100));
    }
    const why = async () => {
      const i = await waiting.inspect().catch(e => ({ error: String(e) }) as never);
      const top = await waiting.top().catch(e => String(e));
      return JSON.stringify({ state: (i as { State?: unknown }).State, env: (i as { Config?: { Env?: string[] } }).Config?.Env, top, seen });
    };
    assert.equal(exit, WITHDRAWN_EXIT, `its command withdrew (it had not taken the GPUs): ${exit === WITHDRAWN_EXIT ? '' : await why()}`);
    const out = await cliAsync(['campaign', 'resume', '--folder', fx.folder, '--id', id, '--host', swarmHost(), '--gpus', '2', ...common()]).done;
    const runsDir = path.join(fx.folder, '.bench-triage/campaigns', id, 'runs');
    const items = readdirSync(runsDir)
      .filter(f => /^\d+\.json$/.test(f))
      .map(f => JSON.parse(readFileSync(path.join(runsDir, f), 'utf8')));
    assert.equal(out.code, 0, `${out.stderr}\n${JSON.stringify(items.map(i => [i.n, i.state, i.error]))}`);
    assert.deepEqual(
      items.map(i => i.state),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
    // Its attempt is kept, interrupted, saying nothing ran; its campaign run ran again under a new id.
    const earlier = items.flatMap(i => (i.earlier ?? []) as Array<{ runId: string; error: string }>);
    const mine = earlier.find(e => e.runId === runId);
    assert.ok(mine, JSON.stringify(earlier));
    assert.match(
      mine.error,
      /had withdrawn from its GPU slot to move to one freed first, before taking the GPUs, when the process moving it ended: nothing ran; removed so that it can run again/,
    );
    const record = JSON.parse(readFileSync(path.join(resultsOf(fx.folder).find(r => r.runId === runId)!.dir, 'run.json'), 'utf8')) as RunRecord;
    assert.equal(record.status, 'interrupted');
    const fresh = resultsOf(fx.folder).filter(r => !before.has(r.runId));
    assert.equal(fresh.filter(r => r.status === 'succeeded').length, 4, fresh.map(r => `${r.runId} ${r.status}`).join(', '));
    await settle();
    assert.deepEqual({ ...(await leftovers()), secrets: await fileSecrets(docker) }, { services: 0, containers: 0, secrets: 0 });
  });
  it("a run whose files are too big for the swarm's secrets (a 13 MB agent patch) has them put into its container once placed: the patch applies whole, no secret is made, nothing left", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-big-patch-'));
    try {
      // A new file of random text: about 10 MB gzipped, past the 16 secrets of 500 KB a run's files may take.
      const n = 170_000;
      const lines = Array.from({ length: n }, () => `+${randomBytes(57).toString('base64')}\n`).join('');
      const file = path.join(dir, 'big.diff');
      writeFileSync(
        file,
        `diff --git a/vllm/bench_triage_blob.txt b/vllm/bench_triage_blob.txt\nnew file mode 100644\n--- /dev/null\n+++ b/vllm/bench_triage_blob.txt\n@@ -0,0 +1,${n} @@\n${lines}`,
      );
      assert.ok(gzipSync(readFileSync(file)).length > 16 * 500 * 1024, 'too big for the secrets');
      const before = new Set(resultsOf(fx.folder).map(r => r.runId));
      let secretsSeen = 0;
      let stop = false;
      const watching = (async () => {
        while (!stop) {
          secretsSeen = Math.max(secretsSeen, await fileSecrets(docker).catch(() => 0));
          await new Promise(r => setTimeout(r, 100));
        }
      })();
      const out = await cliAsync([...runRoleArgs(fx, 'agent'), '--agent-patch', file, '--host', swarmHost(), '--gpus', '2', ...common()]).done;
      stop = true;
      await watching;
      const fresh = resultsOf(fx.folder).filter(r => !before.has(r.runId));
      assert.equal(fresh.length, 1);
      const record = JSON.parse(readFileSync(path.join(fresh[0].dir, 'run.json'), 'utf8')) as RunRecord;
      assert.equal(out.code, 0, `${out.stderr}\n${record.error}`);
      assert.equal(record.status, 'succeeded', record.error ?? '');
      assert.equal(secretsSeen, 0, "the files did not go as the swarm's secrets");
      // git apply checked every line of the hunk: the patch arrived whole.
      const patchLog = readFileSync(path.join(fresh[0].dir, 'logs/patch.stdout.log'), 'utf8');
      assert.match(patchLog, /1 file\(s\): vllm\/bench_triage_blob\.txt/);
      assert.match(patchLog, /AGENT_PATCH_APPLIED/);
      assert.match(readFileSync(path.join(fresh[0].dir, 'logs/benchmark.stdout.log'), 'utf8'), /=+ Serving Benchmark Result =+\nSuccessful requests: +\d+/);
      await settle();
      assert.deepEqual({ ...(await leftovers()), secrets: await fileSecrets(docker) }, { services: 0, containers: 0, secrets: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
