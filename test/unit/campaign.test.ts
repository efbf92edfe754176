import * as assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  buildEstimate,
  parseSelector,
  planBuildCampaign,
  planCampaign,
  refusalLines,
  rolesOf,
  rolesToBuild,
  selectEntries,
  type CampaignItem,
} from '../../src/core/campaign/plan';
import { buildsExecutor, campaignHosts, driveCampaign, itemExecutor, slotsFor } from '../../src/app/campaignDriver';
import { runSlots, type HostConfig } from '../../src/core/run/hosts';
import { HostQueue } from '../../src/runner/hostQueue';
import type { Runs } from '../../src/app/runs';
import { runResultDir } from '../../src/core/run/plan';
import type { Builds } from '../../src/app/builds';
import { CampaignQueue, type CampaignExecutor } from '../../src/app/campaigns';
import { BUILD_RECORD_SCHEMA } from '../../src/core/ingest';
import type { CommitTriage } from '../../src/core/compare';
import { runCli as run } from './helpers';
import { gpusTaken, LABEL } from '../../src/runner/execute';

const DEMO = path.resolve(__dirname, '../../demo/workspace');

/** Just enough of an entry for selection and planning. */
function entry(commit: string, outcome: string, agent: string | null = 'claude_code'): CommitTriage {
  const view = (category: string | null) => ({
    run: null,
    history: [],
    attempts: [],
    classification: category ? ({ category, fixability: 'rebuild' } as never) : null,
  });
  return {
    commit,
    agent,
    project: 'vllm',
    outcome,
    verdict: 'n/a',
    model: 'm',
    roles: { baseline: view(outcome === 'complete' ? null : outcome), human: view(null), agent: view(null) },
  } as unknown as CommitTriage;
}

/** A fake executor: runs take `ms`, counts concurrency and starts per item, writes run.json like the runner. */
function fakeExec(folder: string, ms = 40) {
  const starts = new Map<number, number>();
  let now = 0,
    peak = 0;
  const reattached: string[] = [];
  const exec: CampaignExecutor = {
    async prepare(item) {
      const runId = `r${item.n}`;
      return { runId, resultDir: `.bench-triage/runs/${item.commit.slice(0, 8)}/${item.role}/${runId}` };
    },
    async start(item, prepared, _host, signal) {
      starts.set(item.n, (starts.get(item.n) ?? 0) + 1);
      peak = Math.max(peak, ++now);
      const dir = path.join(folder, prepared.resultDir);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ status: 'running' }));
      try {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => (clearTimeout(t), reject(new Error('cancelled'))), { once: true });
        });
        fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ status: 'succeeded' }));
        return { status: 'succeeded', error: null };
      } catch {
        fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ status: 'cancelled' }));
        return { status: 'cancelled', error: 'cancelled' };
      } finally {
        now--;
      }
    },
    async recorded(resultDir) {
      try {
        const s = JSON.parse(fs.readFileSync(path.join(folder, resultDir, 'run.json'), 'utf8')).status as string;
        return { status: s, final: s !== 'running' };
      } catch {
        return null;
      }
    },
    async reattach(host) {
      reattached.push(host);
      for (const f of walkRunJson(folder))
        if (JSON.parse(fs.readFileSync(f, 'utf8')).status === 'running') fs.writeFileSync(f, JSON.stringify({ status: 'succeeded' }));
    },
  };
  return { exec, starts, peak: () => peak, reattached };
}

/** A campaign run recorded `running` under a claim of process `pid` (dead or alive), its run.json at `status` (none when null). */
function leaveRunning(
  folder: string,
  q: CampaignQueue,
  r: { n: number; runId: string; resultDir: string; status: string | null; pid: number; earlier?: unknown[] },
): Record<string, unknown> {
  if (r.status) {
    fs.mkdirSync(path.join(folder, r.resultDir), { recursive: true });
    fs.writeFileSync(path.join(folder, r.resultDir, 'run.json'), JSON.stringify({ status: r.status }));
  }
  const rec = {
    schema: 'bench-triage.campaign-run/v1',
    n: r.n,
    state: 'running',
    runId: r.runId,
    resultDir: r.resultDir,
    host: 'h',
    runStatus: null,
    error: null,
    startedAt: 'x',
    endedAt: null,
    ...(r.earlier ? { earlier: r.earlier } : {}),
  };
  fs.writeFileSync(path.join(q.dir, 'runs', `${r.n}.json`), JSON.stringify(rec));
  fs.writeFileSync(path.join(q.dir, 'claims', String(r.n)), JSON.stringify({ pid: r.pid, host: os.hostname() }));
  return rec;
}

function walkRunJson(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walkRunJson(p));
    else if (e.name === 'run.json') out.push(p);
  }
  return out;
}

const items = (n: number): CampaignItem[] =>
  Array.from({ length: n }, (_, i) => ({
    n: i + 1,
    commit: `c${String(i).padStart(7, '0')}`,
    agent: null,
    role: 'baseline',
    repeat: 1,
    estimateS: 60,
    gpus: 1,
  }));

async function until(ok: () => Promise<boolean>, ms = 10000): Promise<void> {
  for (const end = Date.now() + ms; !(await ok());) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise(r => setTimeout(r, 20));
  }
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'bt-campaign-'));
}

/** The demo's "No vLLM wheel" commit: a real commit of the demo checkout, whose id follows the fake's benchmark scripts (scripts/demo-checkout.mjs). */
function demoWheelCommit(): string {
  const row = fs
    .readFileSync(path.join(DEMO, 'dataset/vllm_commits.jsonl'), 'utf8')
    .split('\n')
    .find(l => l.includes('"[Core] Optimize block_manager"'));
  return (JSON.parse(row!) as { commit_hash: string }).commit_hash;
}
describe('campaigns (issue 15): plan, durable queue, resume', function () {
  this.timeout(60000);

  it('selects entries by key=value clauses and refuses unknown keys', () => {
    const es = [entry('aaaa1111', 'wheel-missing'), entry('bbbb2222', 'complete'), entry('cccc3333', 'wheel-missing', 'codex')];
    assert.deepEqual(
      selectEntries(es, parseSelector('category=wheel-missing')).map(e => e.commit),
      ['aaaa1111', 'cccc3333'],
    );
    assert.deepEqual(
      selectEntries(es, parseSelector('category=wheel-missing,agent!=codex')).map(e => e.commit),
      ['aaaa1111'],
    );
    assert.deepEqual(
      selectEntries(es, parseSelector('commit=bbbb')).map(e => e.commit),
      ['bbbb2222'],
    );
    assert.deepEqual(rolesOf(parseSelector('outcome=complete,role!=agent')), ['baseline', 'human']);
    assert.throws(() => parseSelector('bogus=1'), /unknown key bogus/);
    assert.throws(() => parseSelector('category'), /expected key=value/);
  });

  it('interleaves repeats (B, H, A of every commit, then again), sums GPU-hours, keeps refusals', () => {
    const es = [entry('aaaa1111', 'complete'), entry('bbbb2222', 'complete')];
    const p = planCampaign({
      entries: es,
      roles: ['baseline', 'human', 'agent'],
      repeats: 2,
      estimate: (_e, role) => (role === 'agent' ? 1800 : 900),
      check: (e, role) => (e.commit === 'bbbb2222' && role === 'agent' ? { refused: 'no agent patch' } : { gpus: e.commit === 'aaaa1111' ? 2 : 1 }),
    });
    assert.deepEqual(
      p.items.map(i => `${i.commit.slice(0, 4)}:${i.role[0]}:${i.repeat}`),
      ['aaaa:b:1', 'aaaa:h:1', 'aaaa:a:1', 'bbbb:b:1', 'bbbb:h:1', 'aaaa:b:2', 'aaaa:h:2', 'aaaa:a:2', 'bbbb:b:2', 'bbbb:h:2'],
    );
    assert.deepEqual(p.refusals, [{ commit: 'bbbb2222', role: 'agent', reason: 'no agent patch' }]);
    // aaaa: (900+900+1800)×2 GPUs, bbbb: (900+900)×1, twice.
    assert.equal(p.gpuHours, (2 * (3600 * 2 + 1800)) / 3600);
    assert.throws(() => planCampaign({ entries: es, roles: ['baseline'], repeats: 0, estimate: () => 1, check: () => ({ gpus: 1 }) }), /repeats/);
  });

  it('states a commit refused for one reason in every role once, and different reasons per role', () => {
    const p = planCampaign({
      entries: [entry('aaaa1111', 'complete'), entry('bbbb2222', 'complete'), entry('cccc3333', 'complete')],
      roles: ['baseline', 'human', 'agent'],
      repeats: 1,
      estimate: () => 60,
      check: (e, role) =>
        e.commit === 'aaaa1111'
          ? { refused: 'commit aaaa1111 has no perf command' }
          : e.commit === 'bbbb2222' && role !== 'baseline'
            ? { refused: role === 'agent' ? 'no agent patch' : 'no image' }
            : { gpus: 1 },
    });
    assert.equal(p.refusals.length, 5);
    assert.deepEqual(refusalLines(p.refusals), [
      'aaaa1111 (baseline, human, agent): commit aaaa1111 has no perf command',
      'bbbb2222 human: no image',
      'bbbb2222 agent: no agent patch',
    ]);
  });

  it('runs every queued run once, at most as many at once as the hosts have slots, with a record per run on disk', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(7), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h1', 'h2'] });
      const f = fakeExec(folder);
      const s = await q.run(
        f.exec,
        [
          { label: 'h1', slots: 1, gpus: 1 },
          { label: 'h2', slots: 1, gpus: 1 },
        ],
        new AbortController().signal,
      );
      assert.equal(s.done, 7);
      assert.equal(f.peak(), 2);
      assert.deepEqual([...f.starts.values()], Array(7).fill(1));
      const recs = await q.items();
      assert.ok(recs.every(r => r.state === 'succeeded' && r.runId && r.host && r.endedAt));
      assert.equal(JSON.parse(fs.readFileSync(path.join(q.dir, 'campaign.json'), 'utf8')).schema, 'bench-triage.campaign/v1');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a campaign of 300 runs: the first run starts after reading a few records, not all 300', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(300), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const runs = path.join(q.dir, 'runs');
      const f = fakeExec(folder, 5);
      const stop = new AbortController();
      const open = fs.promises.open;
      let opened = 0,
        beforeFirstStart = -1;
      fs.promises.open = ((...a: Parameters<typeof open>) => {
        if (String(a[0]).startsWith(runs + path.sep) && String(a[0]).endsWith('.json')) opened++;
        return open(...a);
      }) as typeof open;
      const start = f.exec.start;
      f.exec.start = (...a) => {
        if (beforeFirstStart < 0) beforeFirstStart = opened;
        stop.abort(); // a reload: what runs goes back to the queue
        return start(...a);
      };
      try {
        await q.run(f.exec, [{ label: 'h', slots: 2, gpus: 2 }], stop.signal);
      } finally {
        fs.promises.open = open;
      }
      assert.ok(beforeFirstStart >= 1 && beforeFirstStart <= 4, `${beforeFirstStart} records were read before the first run started`);
      assert.ok([...f.starts.values()].every(k => k === 1) && f.starts.size <= 2, 'no run started twice, at most one per slot');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('resumed with most runs ended: only the queued ones run, once each, and the ended records are left as they were', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(300), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const runs = path.join(q.dir, 'runs');
      const ended = new Map<number, string>();
      for (let n = 1; n <= 290; n++) {
        const file = path.join(runs, `${n}.json`);
        const r = JSON.parse(fs.readFileSync(file, 'utf8'));
        const text = JSON.stringify({
          ...r,
          state: n % 7 ? 'succeeded' : 'failed',
          runId: `old${n}`,
          resultDir: `x/old${n}`,
          endedAt: new Date().toISOString(),
        });
        fs.writeFileSync(file, text);
        ended.set(n, text);
      }
      const f = fakeExec(folder, 5);
      const s = await q.run(f.exec, [{ label: 'h', slots: 2, gpus: 2 }], new AbortController().signal);
      assert.deepEqual(
        [...f.starts.keys()].sort((a, b) => a - b),
        Array.from({ length: 10 }, (_, i) => 291 + i),
      );
      assert.deepEqual([...f.starts.values()], Array(10).fill(1));
      assert.equal(s.done, 300 - Math.floor(290 / 7), 'the 249 that had succeeded and the 10 run now');
      assert.ok((await q.items()).every(r => r.state === 'succeeded' || r.state === 'failed'));
      for (const [n, text] of ended) assert.equal(fs.readFileSync(path.join(runs, `${n}.json`), 'utf8'), text, `run ${n} was rewritten`);
      assert.deepEqual(fs.readdirSync(path.join(q.dir, 'claims')), [], 'no claim is left');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('plans the next run while the slot is busy (claimed, queued with its id), and a stop gives it back as it was', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(4), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h1'] });
      const f = fakeExec(folder, 60);
      const seen: Array<{ n: number; state: string; runId: string | null; claimed: boolean }> = [];
      const start = f.exec.start;
      const ctl = new AbortController();
      f.exec.start = async (item, prepared, host, signal) => {
        const running = start(item, prepared, host, signal);
        // Halfway through run 1, run 2 is already claimed and planned; it has not started.
        await new Promise(r => setTimeout(r, 30));
        const two = await q.item(2);
        seen.push({ n: item.n, state: two.state, runId: two.runId, claimed: fs.existsSync(path.join(q.dir, 'claims', '2')) });
        if (item.n === 2) ctl.abort(); // a window reload while run 2 runs: 3 was planned ahead
        return running;
      };
      await q.run(f.exec, [{ label: 'h1', slots: 1, gpus: 1 }], ctl.signal);
      assert.deepEqual(seen[0], { n: 1, state: 'queued', runId: 'r2', claimed: true });
      assert.equal((await q.item(2)).state, 'queued'); // stopped by the reload, back for Resume
      const three = await q.item(3);
      assert.deepEqual([three.state, three.runId, three.resultDir], ['queued', null, null]);
      assert.deepEqual(fs.readdirSync(path.join(q.dir, 'claims')), []);
      assert.equal(f.starts.get(3), undefined);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a queued run whose saved id already started (its process died in between) goes again under a new id', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(1), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h1'] });
      const f = fakeExec(folder, 10);
      const old = await f.exec.prepare(items(1)[0]);
      const rec = { ...(await q.item(1)), runId: old.runId, resultDir: old.resultDir };
      fs.writeFileSync(path.join(q.dir, 'runs', '1.json'), JSON.stringify(rec));
      fs.mkdirSync(path.join(folder, old.resultDir), { recursive: true });
      fs.writeFileSync(path.join(folder, old.resultDir, 'run.json'), JSON.stringify({ status: 'failed' }));
      let k = 0;
      f.exec.prepare = async item => ({ runId: `fresh${++k}`, resultDir: `.bench-triage/runs/${item.commit.slice(0, 8)}/${item.role}/fresh${k}` });
      await q.run(f.exec, [{ label: 'h1', slots: 1, gpus: 1 }], new AbortController().signal);
      const one = await q.item(1);
      assert.deepEqual([one.state, one.runId], ['succeeded', 'fresh1']);
      assert.equal(JSON.parse(fs.readFileSync(path.join(folder, old.resultDir, 'run.json'), 'utf8')).status, 'failed'); // the old attempt stays
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a run lost with its node (interrupted) runs again under a new id, the lost attempt named in the record; after two losses the item fails', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(3), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h1'] });
      const f = fakeExec(folder, 10);
      let k = 0;
      f.exec.prepare = async item => ({ runId: `r${item.n}-${++k}`, resultDir: `.bench-triage/runs/${item.commit.slice(0, 8)}/${item.role}/r${item.n}-${k}` });
      const start = f.exec.start;
      const lost = new Map<number, number>();
      f.exec.start = async (item, prepared, host, signal) => {
        // Item 2 is lost once (a worker's engine killed); item 3 every time.
        if ((item.n === 2 && !lost.get(2)) || item.n === 3) {
          lost.set(item.n, (lost.get(item.n) ?? 0) + 1);
          return { status: 'interrupted', error: `lost the Docker daemon during the run: node w${item.n} is down` };
        }
        return start(item, prepared, host, signal);
      };
      const s = await q.run(f.exec, [{ label: 'h1', slots: 1, gpus: 1 }], new AbortController().signal);
      assert.deepEqual([s.done, s.failed], [2, 1]);
      const two = await q.item(2);
      assert.equal(two.state, 'succeeded');
      assert.equal(two.earlier?.length, 1);
      assert.notEqual(two.earlier![0].runId, two.runId);
      assert.match(two.earlier![0].error!, /node w2 is down/);
      const three = await q.item(3);
      assert.equal(three.state, 'failed');
      assert.equal(lost.get(3), 3, 'the first attempt and two more');
      assert.equal(three.earlier?.length, 2);
      assert.equal(new Set([three.runId, ...three.earlier!.map(e => e.runId)]).size, 3, 'each attempt its own id');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a run that cannot be planned any more fails alone, saying why, and holds no claim; the others run', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(3), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h1'] });
      const f = fakeExec(folder);
      const prepare = f.exec.prepare;
      f.exec.prepare = async item => {
        if (item.n === 2) throw new Error('commit bbbb is not in the folder any more');
        return prepare(item);
      };
      const s = await q.run(f.exec, [{ label: 'h1', slots: 1, gpus: 1 }], new AbortController().signal);
      assert.deepEqual([s.done, s.failed], [2, 1]);
      const two = await q.item(2);
      assert.deepEqual([two.state, two.error], ['failed', 'commit bbbb is not in the folder any more']);
      assert.deepEqual(fs.readdirSync(path.join(q.dir, 'claims')), []);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('two processes on one campaign never start the same run (exclusive claims)', async () => {
    const folder = tmp();
    try {
      const q1 = await CampaignQueue.create(folder, { items: items(8), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const q2 = await CampaignQueue.load(folder, q1.record.id);
      const f = fakeExec(folder, 20);
      const hosts = [{ label: 'h', slots: 2, gpus: 2 }];
      await Promise.all([q1.run(f.exec, hosts, new AbortController().signal), q2.run(f.exec, hosts, new AbortController().signal)]);
      assert.equal(f.starts.size, 8);
      assert.deepEqual([...f.starts.values()], Array(8).fill(1));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('after a killed process, resume finishes what ran, re-attaches what still runs, requeues what never started — nothing twice', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(4), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const f = fakeExec(folder);
      // A process that has exited: its pid is dead.
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const running = (n: number, status: string | null) =>
        leaveRunning(folder, q, { n, runId: `r${n}`, resultDir: `.bench-triage/runs/c000000${n - 1}/baseline/r${n}`, status, pid: Number(dead.stdout) });
      running(1, 'succeeded'); // finished while the CLI was gone
      running(2, 'running'); // still running on the host: re-attach
      running(3, null); // claimed, never started
      await q.reconcile(f.exec, new AbortController().signal);
      assert.deepEqual(f.reattached, ['h']);
      const s = await q.run(f.exec, [{ label: 'h', slots: 1, gpus: 1 }], new AbortController().signal);
      assert.equal(s.done, 4);
      assert.deepEqual(
        [...f.starts.entries()].sort(),
        [
          [3, 1],
          [4, 1],
        ],
        'only the never-started and the queued runs are started',
      );
      assert.equal((await q.item(3)).runId, 'r3', 'a requeued run keeps its id');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a run whose process died mid-run and that nothing can re-attach goes again under a new id (the old attempt stays)', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(1), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const f = fakeExec(folder);
      f.exec.reattach = async () => {}; // its container is gone: nothing to re-attach
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const resultDir = '.bench-triage/runs/c0000000/baseline/old';
      leaveRunning(folder, q, { n: 1, runId: 'old', resultDir, status: 'running', pid: Number(dead.stdout) });
      await q.reconcile(f.exec, new AbortController().signal);
      const requeued = await q.item(1);
      assert.equal(requeued.state, 'queued');
      assert.match(requeued.error ?? '', /interrupted attempt old/);
      const s = await q.run(f.exec, [{ label: 'h', slots: 1, gpus: 1 }], new AbortController().signal);
      assert.equal(s.done, 1);
      assert.equal((await q.item(1)).runId, 'r1');
      assert.equal(JSON.parse(fs.readFileSync(path.join(folder, resultDir, 'run.json'), 'utf8')).status, 'running', 'the old attempt is left as it was');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a run the re-attach ends interrupted (its task still waited in the swarm when its process died) goes again under a new id, the attempt named; after two such attempts the item fails', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(1), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const f = fakeExec(folder);
      const why = 'it was still waiting to start (state pending) when the process driving it ended: nothing ran; removed so that it can run again';
      f.exec.recorded = async resultDir => {
        const s = JSON.parse(fs.readFileSync(path.join(folder, resultDir, 'run.json'), 'utf8')).status as string;
        return { status: s, final: s !== 'running', error: s === 'interrupted' ? why : null };
      };
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      // The re-attach pass ends the waiting run: its record says interrupted.
      f.exec.reattach = async () => {
        for (const file of walkRunJson(folder))
          if (JSON.parse(fs.readFileSync(file, 'utf8')).status === 'preflight') fs.writeFileSync(file, JSON.stringify({ status: 'interrupted' }));
      };
      const leaveWaiting = async (runId: string, earlier: unknown[]) => {
        const resultDir = `.bench-triage/runs/c0000000/baseline/${runId}`;
        leaveRunning(folder, q, { n: 1, runId, resultDir, status: 'preflight', pid: Number(dead.stdout), earlier });
        return resultDir;
      };
      const first = await leaveWaiting('w1', []);
      await q.reconcile(f.exec, new AbortController().signal);
      const again = await q.item(1);
      assert.equal(again.state, 'queued');
      assert.equal(again.runId, null, 'a new attempt gets its own id');
      assert.deepEqual(again.earlier, [{ runId: 'w1', resultDir: first, error: why }]);
      assert.match(again.error ?? '', /attempt w1 was interrupted \(it was still waiting to start/);
      assert.equal(JSON.parse(fs.readFileSync(path.join(folder, first, 'run.json'), 'utf8')).status, 'interrupted', 'the attempt is kept as it is');
      // Bounded as a live driver's re-runs are: with two attempts already lost, the item fails.
      await leaveWaiting('w3', [
        { runId: 'w1', resultDir: first, error: why },
        { runId: 'w2', resultDir: first, error: why },
      ]);
      await q.reconcile(f.exec, new AbortController().signal);
      const failed = await q.item(1);
      assert.equal(failed.state, 'failed');
      assert.equal(failed.runId, 'w3');
      assert.equal(failed.error, why, 'the item says why its run ended');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('Resume while the process it replaces still holds runs: it waits, then takes over what that process hands back or leaves when it dies', async () => {
    const folder = tmp();
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const q = await CampaignQueue.create(folder, { items: items(4), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const f = fakeExec(folder);
      const hold = (n: number) =>
        leaveRunning(folder, q, { n, runId: `old${n}`, resultDir: `.bench-triage/runs/c000000${n - 1}/baseline/old${n}`, status: 'running', pid: other.pid! });
      const one = hold(1);
      hold(2);
      let ended = false;
      const done = q.run(f.exec, [{ label: 'h', slots: 1, gpus: 1 }], new AbortController().signal, () => {}, { waitMs: 50 }).then(s => ((ended = true), s));
      await until(async () => (await q.item(4)).state === 'succeeded');
      await new Promise(r => setTimeout(r, 300));
      assert.equal(ended, false, 'it does not end while another live process holds runs');
      // The other process stops: run 1 goes back to the queue (as a reloading window does) …
      fs.writeFileSync(
        path.join(q.dir, 'runs', '1.json'),
        JSON.stringify({ ...one, state: 'queued', runId: null, resultDir: null, host: null, startedAt: null }),
      );
      fs.rmSync(path.join(q.dir, 'claims', '1'));
      await until(async () => (await q.item(1)).state === 'succeeded');
      assert.equal(ended, false);
      // … and it dies before it could hand run 2 back: its claim is stale, and run 2 is re-attached where it runs.
      other.kill('SIGKILL');
      await new Promise(r => other.once('exit', r));
      const s = await done;
      assert.equal(s.done, 4);
      assert.deepEqual(
        [...f.starts.entries()].sort(),
        [
          [1, 1],
          [3, 1],
          [4, 1],
        ],
        'the runs it handed back or never held started here, once each',
      );
      assert.deepEqual(f.reattached, ['h'], 'the run the dead process left running was re-attached on its host');
      assert.deepEqual([(await q.item(2)).state, (await q.item(2)).runId], ['succeeded', 'old2']);
      assert.deepEqual(fs.readdirSync(path.join(q.dir, 'claims')), []);
    } finally {
      other.kill('SIGKILL');
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a run no host can take (more GPUs than any has) does not keep the driver waiting', async () => {
    const folder = tmp();
    try {
      const big = items(2).map(i => (i.n === 2 ? { ...i, gpus: 8 } : i));
      const q = await CampaignQueue.create(folder, { items: big, refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const s = await q.run(fakeExec(folder).exec, [{ label: 'h', slots: 1, gpus: 1 }], new AbortController().signal, () => {}, { waitMs: 50 });
      assert.deepEqual([s.done, s.queued], [1, 1]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('one driver: a run is queued without planning or reading a secret, and planned once when it starts, on the host it landed on', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(3), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['a', 'b'] });
      const settingsAsked: string[] = [];
      const started: Array<[string, string | undefined]> = [];
      const runs = {
        plan: () => assert.fail('nothing is planned to queue a run'),
        async start(t: { runId?: string }, s: { host: { label: string } }) {
          started.push([s.host.label, t.runId]);
          return [{ status: 'succeeded', error: null }];
        },
      } as unknown as Runs;
      const hosts = [
        { label: 'a', docker: '', gpus: 1 },
        { label: 'b', docker: '', gpus: 1 },
      ];
      const s = await driveCampaign(
        q,
        {
          runs,
          builds: {} as Builds,
          folder,
          hosts,
          runTarget: async (item, runId) => ({ folder, commit: { hash: item.commit } as never, roles: [item.role], agentRun: null, runId }),
          buildTarget: null,
          runSettings: async host => (settingsAsked.push(host.label), { host }),
          buildOptions: async () => assert.fail('no build'),
          secretValues: () => assert.fail('no secret read to queue or start a run (the settings carry them)'),
        },
        { signal: new AbortController().signal },
      );
      assert.equal(s.done, 3);
      assert.equal(settingsAsked.length, 3, 'the settings (and their secrets) are read once per run, when it starts');
      const recs = await q.items();
      for (const r of recs) {
        assert.equal(r.resultDir, runResultDir(`c${String(r.n - 1).padStart(7, '0')}`, 'baseline', r.runId!));
        assert.ok(
          started.some(([host, id]) => host === r.host && id === r.runId),
          `run ${r.n} started on ${r.host} under its queued id`,
        );
      }
      assert.deepEqual(new Set(recs.map(r => r.host)), new Set(['a', 'b']), 'both hosts of the pool took runs');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a process that stops (a window reload) leaves its runs queued for Resume, not cancelled', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(3), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const f = fakeExec(folder, 5000);
      const stop = new AbortController();
      const done = q.run(f.exec, [{ label: 'h', slots: 1, gpus: 1 }], stop.signal);
      await new Promise(r => setTimeout(r, 300));
      stop.abort();
      const s = await done;
      assert.equal(s.cancelled, 0);
      assert.equal(s.queued, 3);
      assert.match((await q.item(1)).error ?? '', /stopped when its process ended/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('cancel from another process stops the running runs and cancels the queued ones', async () => {
    const folder = tmp();
    try {
      const q = await CampaignQueue.create(folder, { items: items(5), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'] });
      const f = fakeExec(folder, 5000);
      const done = q.run(f.exec, [{ label: 'h', slots: 1, gpus: 1 }], new AbortController().signal);
      await new Promise(r => setTimeout(r, 300));
      const other = await CampaignQueue.load(folder, q.record.id);
      // The driver cancels queued runs too as soon as it sees the file: the two share the queued ones.
      const byOther = await other.requestCancel();
      assert.ok(byOther >= 0 && byOther <= 4, String(byOther));
      const s = await done;
      // The driver sees the cancel file as it appears, and may end while the other process is
      // still writing its last cancelled record: what counts is the campaign once both are done.
      assert.deepEqual([s.cancelled + s.queued, s.running, s.done], [5, 0, 0]);
      assert.equal((await q.status()).cancelled, 5);
      assert.equal(f.starts.size, 1);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('CLI: campaign plan on the demo shows runs, GPU-hours and refusals; bad input names the option', () => {
    const p = run('campaign', 'plan', '--folder', DEMO, '--select', 'category=wheel-missing', '--repeats', '2', '--json');
    assert.equal(p.status, 0, p.stderr);
    const plan = JSON.parse(p.stdout);
    assert.deepEqual(
      plan.items.map((i: CampaignItem) => `${i.role}:${i.repeat}`),
      ['baseline:1', 'human:1', 'baseline:2', 'human:2'],
    );
    assert.ok(plan.gpuHours > 0);
    assert.match(plan.refusals[0].reason, /agent/);
    const bad = run('campaign', 'plan', '--folder', DEMO, '--select', 'nope=1');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /unknown key nope/);
    const reps = run('campaign', 'start', '--folder', DEMO, '--select', 'category=wheel-missing', '--repeats', '0');
    assert.match(reps.stderr, /--repeats must be a whole number/);
    const st = run('campaign', 'status', '--folder', DEMO);
    assert.equal(st.status, 0);
    assert.match(st.stdout, /no campaigns in/);
  });
});

describe('a plain Docker host shared by several processes (best effort)', () => {
  it('a run waits for GPU ids that running bench-triage containers hold, and only for those', () => {
    const cs = [
      { state: 'running', labels: { [LABEL.runId]: 'a', [LABEL.gpus]: '0,1' } },
      { state: 'exited', labels: { [LABEL.runId]: 'b', [LABEL.gpus]: '2' } },
      { state: 'running', labels: { [LABEL.runId]: 'c', [LABEL.gpus]: '' } },
    ];
    assert.deepEqual(gpusTaken(['1', '2', '3'], cs), ['1']);
    assert.deepEqual(gpusTaken(['2', '3'], cs), []);
    assert.deepEqual(gpusTaken([], cs), []);
  });
});

describe('campaigns of image builds (issue 16: groups go through the campaign queue)', () => {
  it("a group's images are a campaign of builds: one per image, no GPU, one at a time per host, estimated from past builds", () => {
    const es = [entry('aaaa1111', 'wheel-missing'), entry('bbbb2222', 'wheel-missing'), entry('cccc3333', 'complete'), entry('dddd4444', 'wheel-missing')];
    // The first two share a parent: one baseline image. The last cannot be built.
    const parent: Record<string, string> = { aaaa1111: 'p1', bbbb2222: 'p1', dddd4444: 'p2' };
    const plan = planBuildCampaign({
      entries: es,
      estimateS: 1800,
      check: (e, role) => (e.commit === 'dddd4444' ? { refused: 'no parent commit in the dataset' } : { tag: `img:${role}-${parent[e.commit]}` }),
    });
    assert.deepEqual(
      plan.items.map(i => `${i.n}:${i.kind}:${i.commit}:${i.role}:${i.gpus}`),
      ['1:build:aaaa1111:baseline:0'],
    );
    assert.equal(plan.gpuHours, 0);
    assert.deepEqual(plan.refusals, [{ commit: 'dddd4444', role: 'baseline', reason: 'no parent commit in the dataset' }]);
    // Roles named (a role node, role=…) are built whatever their failure; the agent's image is the baseline's.
    assert.deepEqual(rolesToBuild(es[2], ['agent', 'human']), ['baseline', 'human']);
    assert.deepEqual(rolesToBuild(es[2]), []);
    // Past builds set the estimate; with none, ISO-Bench's half hour.
    assert.equal(buildEstimate(es), 1800);
    const built = entry('eeee5555', 'wheel-missing');
    (built.roles.baseline.history as unknown[]).push({ source: 'bench-triage-build', durationS: 600 }, { source: 'bench-triage-build', durationS: 900 });
    (built.roles.human.history as unknown[]).push({ source: 'bench-triage-run', durationS: 60 });
    assert.equal(buildEstimate([...es, built]), 900);
    // One build at a time per host, on no GPU; a campaign of runs keeps its GPU slots.
    const hosts = [{ label: 'h100-a', gpus: 8, slots: 8 }];
    assert.deepEqual(slotsFor(plan.items, hosts), [{ label: 'h100-a', gpus: 0, slots: 1 }]);
    const runs: CampaignItem[] = [{ ...plan.items[0], kind: undefined, gpus: 1 }];
    assert.deepEqual(slotsFor(runs, hosts), hosts);
  });

  it('runs at once per host: its GPUs (or maxParallel below them), a GPU-less host maxParallel, a swarm three times its GPUs (per GPU one run on it, one ready, one held back)', async () => {
    const slots = (h: Partial<HostConfig>) => campaignHosts([{ label: 'h', docker: '', gpus: 0, ...h }])[0].slots;
    assert.deepEqual(
      [
        slots({ gpus: 8 }),
        slots({ gpus: 8, maxParallel: 2 }),
        slots({ gpus: 0 }),
        slots({ gpus: 0, maxParallel: 3 }),
        slots({ kind: 'swarm', gpus: 4 }),
        slots({ kind: 'swarm', gpus: 4, maxParallel: 3 }),
      ],
      [8, 2, 1, 3, 12, 3],
    );
    // The runner's queue on a swarm grants that many single-GPU runs; a plain host never more than its GPUs.
    const grant = async (h: HostConfig) => {
      const q = new HostQueue(h.gpus, runSlots(h));
      let n = 0;
      const ctl = new AbortController();
      // Sixteen waits on one signal: more than Node's default warns of.
      setMaxListeners(16, ctl.signal);
      for (let i = 0; i < 16; i++)
        void q.acquire(1, ctl.signal).then(
          () => n++,
          () => {},
        );
      await new Promise(r => setTimeout(r, 10));
      ctl.abort();
      return n;
    };
    assert.deepEqual(
      [await grant({ label: 's', docker: '', kind: 'swarm', gpus: 4 }), await grant({ label: 'p', docker: '', gpus: 4, maxParallel: 6 })],
      [12, 4],
    );
  });

  it('a campaign sends builds to Builds and runs to Runs; a killed build is queued again, a finished one counts', async () => {
    const folder = tmp();
    try {
      const seen: string[] = [];
      const fake = (name: string) =>
        ({
          prepare: async (i: CampaignItem) => (seen.push(`${name}:prepare:${i.n}`), { runId: `${name}${i.n}`, resultDir: `${name}/${i.n}` }),
          start: async (i: CampaignItem) => (seen.push(`${name}:start:${i.n}`), { status: 'succeeded', error: null }),
          recorded: async (d: string) => (d.startsWith(name) ? { status: 'succeeded', final: true } : null),
          reattach: async () => void seen.push(`${name}:reattach`),
        }) as CampaignExecutor;
      const build: CampaignItem = { n: 1, kind: 'build', commit: 'aaaa1111', agent: null, role: 'baseline', repeat: 1, estimateS: 10, gpus: 0 };
      const runItem: CampaignItem = { ...build, n: 2, kind: undefined, gpus: 1 };
      const x = itemExecutor(fake('run'), fake('build'));
      await x.prepare(build);
      await x.start(runItem, { runId: 'r', resultDir: 'd' }, 'h', new AbortController().signal);
      await x.reattach('h', new AbortController().signal);
      assert.deepEqual(seen, ['build:prepare:1', 'run:start:2', 'run:reattach']);
      assert.deepEqual(await x.recorded('build/1'), { status: 'succeeded', final: true });
      await assert.rejects(itemExecutor(fake('run'), null).prepare(build), /needs a vLLM checkout/);
      // build.json as the Builder leaves it: a dead process's build is not final and nobody drives it; reused is a success.
      const bx = buildsExecutor({
        builds: {} as Builds,
        folder,
        target: async () => ({}) as never,
        hostOf: () => ({}) as never,
        optionsOf: async () => ({}) as never,
      });
      const write = (d: string, r: object) => {
        fs.mkdirSync(path.join(folder, d), { recursive: true });
        const whole = {
          schema: BUILD_RECORD_SCHEMA,
          buildId: d,
          commit: 'aaaa1111',
          error: null,
          log: 'build.log',
          dockerfile: 'Dockerfile',
          logBytes: 0,
          ...r,
        };
        fs.writeFileSync(path.join(folder, d, 'build.json'), JSON.stringify(whole));
      };
      const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
      write('b1', { status: 'building', owner: `${os.hostname()}:${dead}` });
      write('b2', { status: 'reused', owner: `${os.hostname()}:${dead}` });
      write('b3', { status: 'building', owner: `${os.hostname()}:${process.pid}` });
      assert.deepEqual(await bx.recorded('b1'), { status: 'building', final: false, driven: false });
      assert.deepEqual(await bx.recorded('b2'), { status: 'succeeded', final: true, driven: false });
      assert.deepEqual(await bx.recorded('b3'), { status: 'building', final: false, driven: true });
      assert.equal(await bx.recorded('none'), null);
      write('b4', { status: 'building', owner: `${os.hostname()}:${dead}`, log: '../../../etc/passwd' });
      assert.equal(await bx.recorded('b4'), null, 'a record naming a log outside its folder is not used');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('CLI: campaign plan --build on the demo plans the "No vLLM wheel" image; without a checkout it is refused, saying why', () => {
    const p = run('campaign', 'plan', '--folder', DEMO, '--select', 'category=wheel-missing', '--build', '--checkout', os.tmpdir(), '--json');
    assert.equal(p.status, 0, p.stderr);
    const plan = JSON.parse(p.stdout);
    assert.deepEqual(
      plan.items.map((i: CampaignItem) => `${i.kind}:${i.commit.slice(0, 8)}:${i.role}:${i.gpus}`),
      [`build:${demoWheelCommit().slice(0, 8)}:baseline:0`],
    );
    const text = run('campaign', 'plan', '--folder', DEMO, '--select', 'category=wheel-missing', '--build', '--checkout', os.tmpdir());
    assert.match(text.stdout, /^1 image builds \(baseline 1, human 0\), one at a time per host, no GPU/m);
    // Resuming a campaign of builds without the checkout is refused before anything is taken.
    const folder = tmp();
    try {
      fs.cpSync(DEMO, folder, { recursive: true });
      fs.rmSync(path.join(folder, '.bench-triage/campaigns'), { recursive: true, force: true });
      const started = run(
        'campaign',
        'start',
        '--folder',
        folder,
        '--select',
        'category=wheel-missing',
        '--build',
        '--checkout',
        os.tmpdir(),
        '--host',
        'unix:///nonexistent/docker.sock',
        '--id',
        'c-b',
      );
      assert.equal(started.status, 1);
      assert.match(started.stderr, /no Docker socket at that path/);
      const resumed = run('campaign', 'resume', '--folder', folder, '--id', 'c-b', '--host', 'unix:///nonexistent/docker.sock');
      assert.notEqual(resumed.status, 0);
      assert.match(resumed.stderr, /campaign c-b builds images: resume needs --checkout DIR/);
      assert.deepEqual(fs.readdirSync(path.join(folder, '.bench-triage/campaigns/c-b/claims')), []);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
    const none = run('campaign', 'plan', '--folder', DEMO, '--select', 'category=wheel-missing', '--build', '--json');
    assert.equal(none.status, 1);
    assert.match(JSON.parse(none.stdout).refusals[0].reason, /needs a local vLLM checkout/);
  });
});
