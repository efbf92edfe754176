import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { CampaignQueue } from '../../src/app/campaigns';
import { fileIndexStore, indexLines } from '../../src/app/indexStore';
import { parseCampaignRecord, parseItemRecord } from '../../src/core/campaign/records';
import { parseLabels, parseRulesFile } from '../../src/core/classify';
import { readBuildRecord, readRunRecord } from '../../src/runner/recordRead';

/**
 * Every record the tool writes and reads back, mutated: a field dropped, its type changed, a
 * traversal or a huge value planted, a duplicate key. Properties: reading never throws, answers
 * within a bound, and either yields a record whose names are safe or a finding naming the field.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const params = (numRuns = RUNS): fc.Parameters<unknown> => ({ seed: SEED, numRuns, endOnFailure: true });

const hostile = fc.oneof(
  fc.constantFrom('../../../../victim', '/etc/passwd', '..', 'a/../../b', '', 'x\u0000y', '__proto__', 'constructor', 'NaN', '1e309'),
  fc.constantFrom(null, true, -1, 1.5, Number.POSITIVE_INFINITY, [], {}, [null], { n: 1 }),
  fc.string({ maxLength: 20 }),
  fc.double(),
);

/** A valid record with one path (a dotted key) set to a hostile value, deleted, or duplicated. */
function mutate(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const paths: string[][] = [];
  const walk = (o: unknown, at: string[]) => {
    if (at.length) paths.push(at);
    if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) walk(v, [...at, k]);
  };
  walk(valid, []);
  return fc.tuple(fc.constantFrom(...paths), fc.constantFrom('set', 'delete', 'duplicate'), hostile).map(([p, how, v]) => {
    const copy = JSON.parse(JSON.stringify(valid));
    let o = copy;
    for (const k of p.slice(0, -1)) o = o[k];
    const last = p[p.length - 1];
    if (how === 'delete') {
      if (Array.isArray(o)) o.splice(Number(last), 1);
      else delete o[last];
      return JSON.stringify(copy);
    }
    if (how === 'duplicate' && !Array.isArray(o) && p.length === 1)
      return JSON.stringify(copy).replace(/^\{/, `{${JSON.stringify(last)}:${JSON.stringify(v) ?? 'null'},`);
    o[last] = v;
    return JSON.stringify(copy) ?? 'null';
  });
}

const timed = <T>(f: () => T): T => {
  const t0 = Date.now();
  const r = f();
  assert.ok(Date.now() - t0 < 2000, `${Date.now() - t0} ms`);
  return r;
};
const named = (finding: string) => assert.match(finding, /field [\w.]+|not JSON|\(top level\)/, finding);

describe('fuzz: records the tool writes, read back (issue 23)', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-fuzz-records-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const campaign = {
    schema: 'bench-triage.campaign/v1',
    id: 'c-1',
    createdAt: '2026-01-01T00:00:00Z',
    select: 'category=x',
    repeats: 1,
    hosts: ['h'],
    gpuHours: 1,
    refusals: [{ commit: 'abc', role: null, reason: 'r' }],
    items: [{ n: 1, commit: 'abcd1234', agent: null, role: 'agent', repeat: 1, estimateS: 60, gpus: 1 }],
  };
  const item = {
    schema: 'bench-triage.campaign-run/v1',
    n: 1,
    state: 'running',
    runId: 'r-1',
    resultDir: '.bench-triage/runs/abcd1234/agent/r-1',
    host: 'h',
    runStatus: null,
    error: null,
    startedAt: null,
    endedAt: null,
  };

  it('campaign.json and runs/<n>.json: a record with safe names, or a finding naming the field', () => {
    fc.assert(
      fc.property(mutate(campaign), text => {
        const r = timed(() => parseCampaignRecord(text, 'campaign.json'));
        if (!r.ok) return named(r.finding);
        for (const i of r.value.items) assert.ok(Number.isInteger(i.n) && i.n >= 1);
        assert.match(r.value.id, /^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      }),
      params(),
    );
    fc.assert(
      fc.property(mutate(item), text => {
        const r = timed(() => parseItemRecord(text, 'runs/1.json', 1));
        if (!r.ok) return named(r.finding);
        if (r.value.resultDir) assert.ok(!r.value.resultDir.split('/').includes('..') && !r.value.resultDir.startsWith('/'));
        if (r.value.runId) assert.match(r.value.runId, /^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      }),
      params(),
    );
  });

  it('a queue over mutated run records never throws and never counts a damaged record as queued', async () => {
    const q = await CampaignQueue.create(
      dir,
      { items: [{ n: 1, commit: 'abcd1234', agent: null, role: 'agent', repeat: 1, estimateS: 60, gpus: 1 }], refusals: [], gpuHours: 0 },
      { select: 's', repeats: 1, hosts: ['h'], id: 'c-fuzz' },
    );
    await fc.assert(
      fc.asyncProperty(mutate({ ...item, state: 'failed' }), async text => {
        fs.writeFileSync(path.join(q.dir, 'runs', '1.json'), text);
        const s = await q.status();
        assert.equal(s.total, 1);
        assert.equal(s.done + s.running + s.queued + s.failed + s.cancelled + s.unreadable, 1, 'every run is counted once');
        if (s.unreadable) named(s.findings[0]);
      }),
      params(60),
    );
  });

  const run = {
    schema: 'bench-triage.run-record/v1',
    runId: 'r-1',
    commit: 'abcd1234',
    role: 'agent',
    host: { label: 'h', docker: '', gpus: 1 },
    image: 'i',
    plan: { resultDir: 'x' },
    recipes: [],
    status: 'running',
    error: null,
    exitCode: null,
    containerId: null,
    gpuIds: [],
    createdAt: 't',
    startedAt: null,
    endedAt: null,
    durationS: null,
    phases: [{ name: 'bench', argv: ['a'], cwd: '/', launchedAt: null, endedAt: null, exitCode: null, stdout: 'logs/o', stderr: 'logs/e' }],
    metrics: {},
    envNames: [],
    secretNames: [],
    runnerLog: 'logs/runner.log',
    owner: 'h:1',
  };
  const build = {
    schema: 'bench-triage.build/v1',
    buildId: 'b-1',
    commit: 'abcd1234',
    status: 'building',
    error: null,
    log: 'build.log',
    dockerfile: 'Dockerfile',
    logBytes: 0,
    owner: 'h:1',
  };

  it('run.json and build.json: the files they name stay inside their folder, or a finding', async () => {
    const rd = path.join(dir, 'run');
    fs.mkdirSync(rd, { recursive: true });
    await fc.assert(
      fc.asyncProperty(mutate(run), mutate(build), async (r, b) => {
        fs.writeFileSync(path.join(rd, 'run.json'), r);
        fs.writeFileSync(path.join(rd, 'build.json'), b);
        const rr = await readRunRecord(rd);
        if (rr.ok)
          for (const f of [rr.record.runnerLog, ...rr.record.phases.flatMap(p => [p.stdout, p.stderr])])
            assert.ok(!f.split('/').includes('..') && !path.isAbsolute(f), f);
        else named(rr.finding);
        const br = await readBuildRecord(rd);
        if (br.ok) assert.ok(!br.record.log.split('/').includes('..') && !path.isAbsolute(br.record.log));
        else named(br.finding);
      }),
      params(),
    );
  });

  it('the index and its state: any JSON of any shape loads as a usable index or as none (a fresh scan)', async () => {
    const cache = path.join(dir, 'cache');
    fs.mkdirSync(cache, { recursive: true });
    const store = fileIndexStore(cache, '/folder');
    const valid = {
      version: 1,
      build: 'b',
      folder: '/folder',
      rulesKey: 'k',
      listing: { files: [['a.json', 3, 1]], records: [] },
      files: { 'a.json': { s: '3:1', x: { record: { path: 'a.json' } }, c: {} } },
    };
    await store.save({ version: 1, build: 'b', folder: '/folder', rulesKey: 'k', listing: { files: [], records: [] }, files: {} });
    const file = fs.readdirSync(cache).find(f => f.startsWith('index-'))!;
    // Not vacuous: the valid index, in the store's form, loads.
    fs.writeFileSync(path.join(cache, file), indexLines.encode(valid));
    assert.deepEqual(Object.keys((await store.load())?.files ?? {}), ['a.json']);
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutate(valid), fc.json()), async text => {
        // In the form the store writes (a header, then its files one per line) where the value is an object; else the text as it is.
        let value: unknown = null;
        try {
          value = JSON.parse(text);
        } catch {
          /* written as it is */
        }
        const lines = value && typeof value === 'object' && !Array.isArray(value) ? indexLines.encode(value as Record<string, unknown>) : text;
        fs.writeFileSync(path.join(cache, file), lines);
        const got = await store.load();
        if (got) {
          assert.ok(Array.isArray(got.listing.files));
          for (const f of Object.values(got.files)) assert.equal(typeof f.stamp, 'string');
        }
      }),
      params(),
    );
  });

  it('labels.json and rules.json: problems name the field; nothing throws', () => {
    const labels = {
      schema: 'bench-triage.labels/v1',
      labels: [{ run: 'r', commit: 'abcd1234', role: 'agent', agent: null, category: 'gpu-oom', lines: [{ line: 1, text: 'x' }], by: 'me', at: 't' }],
    };
    const rules = { rules: [{ id: 'team.x', category: 'gpu-oom', description: 'd', indications: [{ scope: 'any', pattern: 'CUDA out of memory' }] }] };
    fc.assert(
      fc.property(mutate(labels), mutate(rules), (l, r) => {
        const pl = timed(() => parseLabels(l));
        for (const p of pl.problems) assert.equal(typeof p.message, 'string');
        const pr = timed(() => parseRulesFile(r));
        for (const p of pr.problems) assert.ok(p.field !== undefined && p.message.length > 0);
      }),
      params(),
    );
  });
});
