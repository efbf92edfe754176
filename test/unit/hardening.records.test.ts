import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CampaignItem } from '../../src/core/campaign/plan';
import { CampaignQueue, CampaignRecordError } from '../../src/app/campaigns';
import { composeTranscript } from '../../src/app/transcript';
import { readRunRecord } from '../../src/runner/recordRead';
import { runCli } from './helpers';
import { indexLines, stateLines } from '../../src/app/indexStore';
import { readJsonLines, type JsonLinesDocument } from '../../src/platform/jsonLinesDocument';

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

/** Every file under `dir` with its hash: what "no byte changed" is checked against. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(path.relative(dir, p), createHash('sha256').update(fs.readFileSync(p)).digest('hex'));
      else out.set(path.relative(dir, p), e.isSymbolicLink() ? `link:${fs.readlinkSync(p)}` : 'special');
    }
  };
  walk(dir);
  return out;
}

describe('hardening: the tool’s own records read back as input (issue 23, item 1)', () => {
  let root: string, folder: string, outside: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-records-'));
    folder = path.join(root, 'ws');
    outside = path.join(root, 'victim');
    fs.mkdirSync(folder);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'victim.json'), '{"keep": true}\n');
    fs.writeFileSync(path.join(root, 'victim.json'), 'untouched\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const make = (id: string, n = 2) =>
    CampaignQueue.create(folder, { items: items(n), refusals: [], gpuHours: 0 }, { select: 'x=y', repeats: 1, hosts: ['h'], id });
  const edit = (id: string, f: (c: Record<string, unknown>) => void) => {
    const file = path.join(folder, '.bench-triage/campaigns', id, 'campaign.json');
    const c = JSON.parse(fs.readFileSync(file, 'utf8'));
    f(c);
    fs.writeFileSync(file, JSON.stringify(c));
  };
  const outsideOf = () => {
    const all = snapshot(root);
    for (const k of [...all.keys()]) if (k.startsWith('ws' + path.sep)) all.delete(k);
    return all;
  };

  it('traversal ids and planted links: cancel and status refuse, naming the file and field, and no byte outside the folder changes', async () => {
    await make('c-trav');
    await make('c-links');
    await make('c-dirlink');
    await make('c-good');
    edit('c-trav', c => ((c.items as Array<Record<string, unknown>>)[0].n = '../../../../victim'));
    const dir = (id: string) => path.join(folder, '.bench-triage/campaigns', id);
    fs.rmSync(path.join(dir('c-links'), 'runs/1.json'));
    fs.symlinkSync(path.join(root, 'victim.json'), path.join(dir('c-links'), 'runs/1.json'));
    fs.rmSync(path.join(dir('c-dirlink'), 'claims'), { recursive: true });
    fs.symlinkSync(outside, path.join(dir('c-dirlink'), 'claims'));
    const before = outsideOf();

    await assert.rejects(
      CampaignQueue.load(folder, 'c-trav'),
      (e: Error) => e instanceof CampaignRecordError && /campaign\.json: field items\.0\.n/.test(e.message),
    );
    await assert.rejects(CampaignQueue.load(folder, 'c-dirlink'), /claims: is not a folder/);
    const q = await CampaignQueue.load(folder, 'c-links');
    assert.equal((await q.item(1)).state, 'unreadable');
    assert.match((await q.item(1)).error!, /runs\/1\.json: the run record is a symbolic link: not followed/);
    await q.requestCancel();
    const s = await q.status();
    assert.equal(s.unreadable, 1, 'counted, not taken for queued');
    assert.equal(s.cancelled, 1, 'the readable queued run is cancelled');

    for (const id of ['c-trav', 'c-dirlink']) {
      const r = runCli('campaign', 'cancel', '--folder', folder, '--id', id);
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /campaign\.json: field items\.0\.n|claims: is not a folder/);
      assert.doesNotMatch(r.stderr, /at .*\.js:\d+/, 'no stack trace');
    }
    // A campaign whose own folder is a link out of the workspace.
    fs.renameSync(dir('c-good'), path.join(outside, 'c-good'));
    fs.symlinkSync(path.join(outside, 'c-good'), dir('c-good'));
    const moved = outsideOf();
    await assert.rejects(CampaignQueue.load(folder, 'c-good'), /leads to .* through a symbolic link/);
    assert.notEqual(runCli('campaign', 'cancel', '--folder', folder, '--id', 'c-good').status, 0);
    assert.deepEqual(outsideOf(), moved, 'nothing written through the linked campaign folder');
    fs.rmSync(dir('c-good'));
    fs.renameSync(path.join(outside, 'c-good'), dir('c-good'));
    assert.deepEqual(outsideOf(), before, 'no byte outside the folder changed');
  });

  it('status: one bad campaign is a line of its own; the others still show', async () => {
    await make('c-1-nohosts');
    await make('c-2-null');
    await make('c-3-eta');
    await make('c-4-good');
    edit('c-1-nohosts', c => delete c.hosts);
    edit('c-2-null', c => ((c.items as unknown[])[0] = null));
    edit('c-3-eta', c => ((c.items as Array<Record<string, unknown>>)[1].estimateS = 'soon'));
    const r = runCli('campaign', 'status', '--folder', folder);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /campaign c-1-nohosts: cannot be read — .*field hosts/);
    assert.match(r.stdout, /campaign c-2-null: cannot be read — .*field items\.0/);
    assert.match(r.stdout, /campaign c-3-eta: cannot be read — .*field items\.1\.estimateS/);
    assert.match(r.stdout, /campaign c-4-good: 0 done, 0 running, 2 queued.*about 2 min left/);
    assert.doesNotMatch(r.stdout + r.stderr, /NaN|undefined|TypeError/);
  });

  it('damaged run records are unreadable findings: never queued again, never run', async () => {
    const q = await make('c-runs', 6);
    const runs = path.join(q.dir, 'runs');
    fs.writeFileSync(path.join(runs, '1.json'), '{"schema": "bench-triage.campaign-run/v1", "n": 1, "sta');
    fs.rmSync(path.join(runs, '2.json'));
    fs.mkdirSync(path.join(runs, '2.json'));
    const three = JSON.parse(fs.readFileSync(path.join(runs, '3.json'), 'utf8'));
    fs.writeFileSync(path.join(runs, '3.json'), JSON.stringify({ ...three, state: 'paused' }));
    fs.rmSync(path.join(runs, '4.json'));
    execFileSync('mkfifo', [path.join(runs, '4.json')]);
    fs.rmSync(path.join(runs, '5.json'));
    // Duplicate keys: the last would silently turn a failure into a queued run.
    fs.writeFileSync(path.join(runs, '6.json'), JSON.stringify({ ...three, n: 6 }).replace('"state":"queued"', '"state":"failed","state":"queued"'));
    const t0 = Date.now();
    const all = await q.items();
    assert.ok(Date.now() - t0 < 2000, 'a FIFO does not block');
    assert.deepEqual(
      all.map(i => i.state),
      ['unreadable', 'unreadable', 'unreadable', 'unreadable', 'unreadable', 'unreadable'],
    );
    const why = all.map(i => i.error);
    assert.match(why[0]!, /runs\/1\.json: not JSON/);
    assert.match(why[1]!, /runs\/2\.json: the run record is a folder/);
    assert.match(why[2]!, /runs\/3\.json: field state/);
    assert.match(why[3]!, /runs\/4\.json: the run record is a FIFO/);
    assert.match(why[4]!, /runs\/5\.json: is missing/);
    assert.match(why[5]!, /runs\/6\.json: not JSON \(duplicate key "state"/);
    let started = 0;
    const exec = {
      prepare: async () => ({ runId: 'r', resultDir: 'x' }),
      start: async () => {
        started++;
        return { status: 'succeeded', error: null };
      },
      recorded: async () => null,
      reattach: async () => {},
    };
    const s = await q.run(exec, [{ label: 'h', slots: 1, gpus: 1 }], new AbortController().signal);
    assert.equal(started, 0, 'nothing is run on a guess');
    assert.equal(s.unreadable, 6);
    assert.equal(s.etaS, null, 'unreadable runs are not waited for');
    assert.ok(fs.statSync(path.join(runs, '2.json')).isDirectory(), 'a damaged record is left for the person to look at');
  });

  it('a run record naming logs outside its folder is a finding; the transcript reads nothing outside', async () => {
    const dir = path.join(folder, '.bench-triage/runs/c1/agent/r1');
    fs.mkdirSync(dir, { recursive: true });
    const rec = {
      schema: 'bench-triage.run-record/v1',
      runId: 'r1',
      commit: 'c1',
      role: 'agent',
      host: { label: 'h', docker: '', gpus: 1 },
      image: 'i',
      plan: { resultDir: '.bench-triage/runs/c1/agent/r1' },
      recipes: [],
      status: 'failed',
      error: null,
      exitCode: 1,
      containerId: null,
      gpuIds: [],
      createdAt: '2026-01-01T00:00:00Z',
      startedAt: null,
      endedAt: null,
      durationS: null,
      phases: [
        {
          name: 'bench',
          argv: [],
          cwd: '/',
          launchedAt: '2026-01-01T00:00:00Z',
          endedAt: null,
          exitCode: 1,
          stdout: '../../../../../../victim.json',
          stderr: 'logs/e',
        },
      ],
      metrics: {},
      metricsSource: null,
      envNames: [],
      secretNames: [],
      runnerLog: 'logs/runner.log',
      owner: 'x:1',
    };
    fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(rec));
    const r = await readRunRecord(dir);
    assert.ok(!r.ok);
    assert.match(r.finding, /run\.json: field phases\.0\.stdout: names a file outside the run’s folder/);
    const t = await composeTranscript(dir);
    assert.equal(t.record, null);
    assert.doesNotMatch(t.text, /untouched/);
    fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ ...rec, phases: [] }));
    assert.ok((await readRunRecord(dir)).ok, 'the same record without the planted path reads');
  });
});

describe('hardening: a corrupt cache heals (issue 23, item 8)', function () {
  this.timeout(120_000);
  const DEMO = path.resolve(__dirname, '../../demo/workspace');

  it('an index or state of the wrong shape is a fresh scan with the same answer; killed writes’ temporaries are swept', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-cache-'));
    try {
      const first = runCli('classify', DEMO, '--json', '--cache', cache);
      assert.equal(first.status, 0, first.stderr);
      const files = fs.readdirSync(cache);
      const index = files.find(f => /^index-[0-9a-f]{16}\.jsonl$/.test(f))!;
      const state = files.find(f => /^state-[0-9a-f]{16}\.jsonl$/.test(f))!;
      assert.ok(index && state, files.join(' '));
      // Both are JSON lines (a header, then the large arrays one item per line): read, changed, written back in that form.
      const read = async (f: string, form: { decode(d: JsonLinesDocument): unknown; lazyItems?: Record<string, (v: unknown) => boolean> }) =>
        form.decode((await readJsonLines(path.join(cache, f), { maxBytes: 1 << 30, what: f, lazy: form.lazyItems }))!) as Record<string, any>;
      const idx = await read(index, indexLines);
      const st = await read(state, stateLines);
      const good = { index: indexLines.encode(idx), state: stateLines.encode(st as any) };
      const firstKey = Object.keys(idx.files)[0];
      const bad: Array<[string, string]> = [
        ['[]', good.state],
        ['{"version": 1}', '{"version": 1}'],
        // A whole-document file (an earlier build's form) is not read.
        [JSON.stringify(idx), JSON.stringify(st)],
        [indexLines.encode({ ...idx, files: [] }), stateLines.encode({ ...st, entries: [{ commit: 'x', roles: { agent: 7 } }] } as any)],
        [
          indexLines.encode({ ...idx, files: { ...idx.files, [firstKey]: { s: 1 } } }),
          stateLines.encode({ ...st, result: { ...st.result, runs: st.result.runs.map(() => 'all') } } as any),
        ],
        [indexLines.encode({ ...idx, listing: { files: [[1, 2, 3]], records: [] } }), stateLines.encode({ ...st, classifications: [[1, {}]] } as any)],
        // A line cut off, and a count that promises more lines than follow.
        [good.index.slice(0, good.index.length - 40), good.state.replace('"$sections":[["entries",', '"$sections":[["entries",1')],
        // Lazy lines (read after the entries) that are not what was written: a classification and a listing row.
        [good.index, stateLines.encode({ ...st, classifications: st.classifications.map(([id]: [string]) => [id, 'not one']) } as any)],
        [good.index, stateLines.encode({ ...st, listing: { ...st.listing, files: st.listing.files.map(() => 'row') } } as any)],
        // Shape-true but unusable inside: an entry's roles lack a role.
        [good.index, stateLines.encode({ ...st, entries: st.entries.map((e: { roles: object }) => ({ ...e, roles: {} })) } as any)],
      ];
      for (const [i, s] of bad) {
        fs.writeFileSync(path.join(cache, index), i);
        fs.writeFileSync(path.join(cache, state), s);
        const dead = path.join(cache, `${index}.999999999.tmp`);
        fs.writeFileSync(dead, '{"half');
        // The saved answer would be printed without opening the index: gone, the index is what is read.
        for (const f of fs.readdirSync(cache)) if (f.startsWith('answer-')) fs.rmSync(path.join(cache, f));
        const r = runCli('classify', DEMO, '--json', '--cache', cache);
        assert.equal(r.status, 0, r.stderr);
        assert.deepEqual(JSON.parse(r.stdout), JSON.parse(first.stdout), `index ${i.slice(0, 60)} / state ${s.slice(0, 60)}`);
        assert.ok(!fs.existsSync(dead), 'the dead process’s temporary is swept');
      }
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
