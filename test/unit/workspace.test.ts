import * as assert from 'node:assert/strict';
import {
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
  writeSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Workspace } from '../../src/app/workspace';
import { fileIndexStore, lazyStateOf, type StateData } from '../../src/app/indexStore';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { entryJson } from '../../src/cli/analyzeFolder';
import { formatWhen } from '../../src/core/report';
import { ISOBENCH, requireCorpus, runCli } from './helpers';

const settings = () => ({ tieBand: 2, rules: [], primaryMetric: {} });
const open = (dir: string, cache?: string) => new Workspace(dir, nodeFileSource(dir), settings, cache ? fileIndexStore(cache, dir) : null);
/** Entries in their JSON contract, for comparing two workspaces. */
// As the CLI prints it (maps keyed by data have no prototype in memory; JSON is what is compared).
const shape = (w: Workspace) => JSON.parse(JSON.stringify(w.entries.map(entryJson)));

/** A runner result.json for a commit (the schema the runner writes). */
function runnerResult(dir: string, commit: string, role: string, metrics: Record<string, number>, extra: Record<string, unknown> = {}): string {
  const rel = `.bench-triage/runs/${commit.slice(0, 8)}/${role}/r-${Object.values(metrics).join('-') || 'x'}/result.json`;
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(
    path.join(dir, rel),
    JSON.stringify({
      schema: 'bench-triage.run/v1',
      commit,
      role,
      status: Object.keys(metrics).length ? 'succeeded' : 'failed',
      error: Object.keys(metrics).length ? null : 'server crashed',
      metrics,
      model: 'meta-llama/Meta-Llama-3-8B-Instruct',
      agent: role === 'agent' ? 'claude_code' : null,
      command: 'python3 benchmarks/benchmark_serving.py --model meta-llama/Meta-Llama-3-8B-Instruct',
      startedAt: '2026-11-20T10:00:00Z',
      durationS: 60,
      ...extra,
    }),
  );
  return rel;
}

describe('Workspace: the service layer both front ends use [ISO-Bench data]', function () {
  this.timeout(180_000);
  let dir: string, cache: string;
  before(() => {
    requireCorpus();
    dir = mkdtempSync(path.join(tmpdir(), 'bt-ws-'));
    cache = mkdtempSync(path.join(tmpdir(), 'bt-ws-cache-'));
    // A copy the tests may change (the corpus itself is read in place elsewhere and never written).
    cpSync(path.join(ISOBENCH, 'archive'), path.join(dir, 'archive'), { recursive: true });
    cpSync(path.join(ISOBENCH, 'data'), path.join(dir, 'data'), { recursive: true });
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  it('gives the CLI the same entries as its own classify --json (one pipeline)', async () => {
    const w = open(dir);
    await w.load();
    const cli = runCli('classify', dir, '--json');
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), JSON.parse(JSON.stringify(shape(w))));
    assert.ok(w.entries.length > 100, `${w.entries.length} entries`);
  });

  it('a changed result file updates only its own commit, and the result equals a full load', async () => {
    const w = open(dir);
    await w.load();
    // An S2 flat file of the corpus: its metric changes.
    const target = w.result.runs.find(r => r.provenance.schema === 'S2' && r.status === 'success' && r.role === 'human')!;
    const file = path.join(dir, target.provenance.file);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const key = Object.keys(doc).find(k => typeof doc[k] === 'number' && /throughput|ttft|latency/.test(k))!;
    doc[key] = doc[key] * 2 + 1;
    writeFileSync(file, JSON.stringify(doc));
    const others = new Map(w.entries.filter(e => e.commit !== target.commit).map(e => [`${e.commit}|${e.agent}`, e]));
    const change = await w.update([target.provenance.file]);
    assert.deepEqual(change, { kind: 'commits', commits: [target.commit] });
    // Every other entry is the very same object: nothing else was recomputed.
    for (const e of w.entries) if (e.commit !== target.commit) assert.equal(e, others.get(`${e.commit}|${e.agent}`));
    const fresh = open(dir);
    await fresh.load();
    assert.deepEqual(shape(w), shape(fresh));
  });

  it('a new run of a known commit (the runner finishing) takes the fast path; a deleted file and a new commit re-assemble', async () => {
    const w = open(dir);
    await w.load();
    const entry = w.entries.find(e => e.project === 'vllm' && e.roles.baseline.run)!;
    const rel = runnerResult(dir, entry.commit, 'baseline', { ttft_mean_ms: 12.5 });
    assert.deepEqual(await w.update([rel]), { kind: 'commits', commits: [entry.commit] });
    const now = w.entries.find(e => e.commit === entry.commit && e.agent === entry.agent)!;
    assert.equal(now.roles.baseline.history.length + now.roles.baseline.attempts.length >= 1, true);
    assert.ok(
      [now.roles.baseline.run, ...now.roles.baseline.history].some(r => r?.provenance.file === rel),
      "the new run is one of the role's attempts",
    );
    // A file of a commit nobody knew: the folder is re-assembled (from the extracts, reading one file).
    const rel2 = runnerResult(dir, 'f'.repeat(40), 'human', { ttft_mean_ms: 3 });
    assert.equal((await w.update([rel2])).kind, 'full');
    assert.ok(w.entries.some(e => e.commit === 'f'.repeat(40)));
    unlinkSync(path.join(dir, rel2));
    await w.update([rel2]);
    assert.ok(!w.entries.some(e => e.commit === 'f'.repeat(40)), 'a deleted file takes its runs with it');
    unlinkSync(path.join(dir, rel));
    await w.update([rel]);
    const fresh = open(dir);
    await fresh.load();
    assert.deepEqual(shape(w), shape(fresh));
  });

  it("the tool's own bookkeeping (a runner's run.json at each phase, a campaign's records) changes no entry and re-assembles nothing", async () => {
    const w = open(dir);
    await w.load();
    const entries = w.entries;
    const rel = '.bench-triage/runs/0123abcd/human/20261124-000000-beef/run.json';
    const camp = '.bench-triage/campaigns/c-1/runs/1.json';
    for (const f of [rel, camp]) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), JSON.stringify({ schema: 'x', status: 'running' }));
    }
    assert.deepEqual(await w.update([rel, camp]), { kind: 'none' });
    assert.equal(w.entries, entries, 'the very same entries: nothing was re-triaged');
    assert.ok(w.result.files.some(r => r.path === rel) && w.result.files.some(r => r.path === camp), 'the listing follows them');
    // A result among them (one batch of the file watcher) is read as ever, on the fast path.
    writeFileSync(path.join(dir, rel), JSON.stringify({ schema: 'x', status: 'succeeded', more: true }));
    const entry = w.entries.find(e => e.project === 'vllm' && e.roles.baseline.run)!;
    const res = runnerResult(dir, entry.commit, 'baseline', { ttft_mean_ms: 9.5 });
    assert.deepEqual(await w.update([rel, res]), { kind: 'commits', commits: [entry.commit] });
    rmSync(path.join(dir, '.bench-triage'), { recursive: true, force: true });
    await w.update([rel, camp, res]);
    const fresh = open(dir);
    await fresh.load();
    assert.deepEqual(shape(w), shape(fresh));
  });

  it('reopens from its index without reading a result file, then catches up with files changed while closed', async () => {
    const first = open(dir, cache);
    await first.load();
    await first.saveIndex();
    // What is loaded from the index and written to it: counted.
    const store = fileIndexStore(cache, dir);
    const calls = { load: 0, save: 0, saveState: 0 };
    const counted: typeof store = {
      ...store,
      load: () => (calls.load++, store.load()),
      save: d => (calls.save++, store.save(d)),
      saveState: d => (calls.saveState++, store.saveState(d)),
    };
    const again = new Workspace(dir, nodeFileSource(dir), settings, counted);
    const { warm, revalidated } = await again.open();
    assert.equal(warm, true);
    assert.equal(again.lastLoad.read, 0);
    assert.deepEqual(shape(again), shape(first));
    assert.deepEqual(await revalidated, { kind: 'none' });
    await again.saveIndex();
    assert.deepEqual(calls, { load: 0, save: 0, saveState: 0 }, 'nothing changed: the extracts (the bulk of the index) stay on disk and nothing is written');
    // Changed while closed: size and mtime differ, so revalidation re-reads exactly that file.
    const run = first.result.runs.find(r => r.provenance.schema === 'S2' && r.role === 'agent')!;
    const file = path.join(dir, run.provenance.file);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    doc.status = doc.status === 'success' ? 'error' : 'success';
    doc.error = doc.status === 'error' ? 'RuntimeError: Engine core initialization failed.' : null;
    writeFileSync(file, JSON.stringify(doc));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const third = new Workspace(dir, nodeFileSource(dir), settings, counted);
    const r3 = await third.open();
    assert.equal(r3.warm, true);
    assert.notEqual((await r3.revalidated).kind, 'none');
    assert.equal(calls.load, 1, 'a changed file loads the extracts, once');
    const fresh = open(dir);
    await fresh.load();
    assert.deepEqual(shape(third), shape(fresh));
  });

  it("a warm reopen's first paint reads no run, classification or listing line; a commit's roles read their own runs; the rest reads as a cold load", async () => {
    await inOwnCache('bt-ws-lazy-', firstPaint);
  });
  it('a state whose listing is damaged on disk (read only when revalidating) gives way to a cold load', async () => {
    await inOwnCache('bt-ws-damaged-', async ownCache => {
      const first = open(dir, ownCache);
      await first.load();
      await first.saveIndex();
      const file = path.join(
        ownCache,
        readdirSync(ownCache).find(f => f.startsWith('state-'))!,
      );
      const text = readFileSync(file);
      const row = text.indexOf('\n["') + 1; // the first listing row
      assert.ok(row > 0);
      const fd = openSync(file, 'r+');
      writeSync(fd, Buffer.from('{'), 0, 1, row);
      closeSync(fd);
      const again = open(dir, ownCache);
      const { warm, revalidated } = await again.open();
      assert.equal(warm, true, 'the entries were read before the listing');
      assert.deepEqual(await revalidated, { kind: 'full' });
      assert.deepEqual(shape(again), shape(first));
      // The cold load saves its index half a second later: now instead, before the folder goes.
      await again.saveIndex();
    });
  });

  /** A cache folder of the test's own (the earlier tests' workspaces may still save theirs, half a second after a change). */
  async function inOwnCache(prefix: string, f: (cache: string) => Promise<void>): Promise<void> {
    const ownCache = mkdtempSync(path.join(tmpdir(), prefix));
    try {
      await f(ownCache);
    } finally {
      rmSync(ownCache, { recursive: true, force: true });
    }
  }

  async function firstPaint(ownCache: string) {
    const first = open(dir, ownCache);
    await first.load();
    await first.saveIndex();
    const store = fileIndexStore(ownCache, dir);
    let state: StateData | null = null;
    const watched: typeof store = { ...store, loadState: async () => (state = await store.loadState()) };
    const again = new Workspace(dir, nodeFileSource(dir), settings, watched);
    const { warm, revalidated } = await again.open();
    assert.equal(warm, true);
    const lazy = lazyStateOf(state!)!;
    assert.ok(lazy, 'the state from disk is lazy');
    // What the Commits tree's first paint reads: the entries' own fields, the problem files, the counts.
    assert.deepEqual(
      again.entries.map(e => [e.commit, e.agent, e.outcome, e.verdict, e.blockingRole]),
      first.entries.map(e => [e.commit, e.agent, e.outcome, e.verdict, e.blockingRole]),
    );
    assert.deepEqual(again.problemFiles(), first.problemFiles());
    assert.ok(again.problemFiles().length > 0, 'the fixture has problem files');
    assert.deepEqual([again.runCount, again.fileCount], [first.result.runs.length, first.result.files.length]);
    assert.deepEqual([lazy.runs.parsed, lazy.classifications.parsed], [0, 0], 'no run or classification read for the first paint');
    // One commit's roles: its own runs and classifications, nothing else.
    const failed = again.entries.find(e => e.blockingRole)!;
    const roles = failed.roles;
    const own = new Set(Object.values(roles).flatMap(v => [v.run, ...v.history, ...v.attempts].filter(Boolean).map(r => r!.id)));
    assert.equal(lazy.runs.parsed, own.size);
    assert.ok(lazy.classifications.parsed <= 3);
    const cold = first.entries.find(e => e.commit === failed.commit && e.agent === failed.agent)!;
    assert.deepEqual(JSON.parse(JSON.stringify(roles)), JSON.parse(JSON.stringify(cold.roles)));
    assert.equal(again.classifications.get(roles[failed.blockingRole!].run!.id), roles[failed.blockingRole!].classification);
    assert.deepEqual(await revalidated, { kind: 'none' });
    // Everything else, read as asked: the same as the cold load.
    assert.deepEqual(shape(again), shape(first));
    assert.deepEqual(JSON.parse(JSON.stringify(again.result)), JSON.parse(JSON.stringify(first.result)));
    assert.deepEqual(
      [...again.classifications].map(([id, c]) => [id, c.category]),
      [...first.classifications].map(([id, c]) => [id, c.category]),
    );
    assert.equal(lazy.runs.parsed, lazy.runs.length);
  }

  it('a category set by hand is on its run after a warm reopen, as after a cold load', async () => {
    const probe = open(dir);
    await probe.load();
    const entry = probe.entries.find(e => e.roles.agent.run && e.roles.agent.classification && e.roles.agent.classification.category !== 'infra-transient')!;
    const run = entry.roles.agent.run!;
    const label = {
      run: run.id,
      commit: entry.commit,
      agent: run.agent,
      role: 'agent' as const,
      category: 'infra-transient',
      was: entry.roles.agent.classification!.category,
      lines: [],
      at: '2026-11-28T12:00:00Z',
    };
    const labelled = () => ({ ...settings(), labels: [label] });
    const labelCache = mkdtempSync(path.join(tmpdir(), 'bt-ws-labels-'));
    try {
      const first = new Workspace(dir, nodeFileSource(dir), labelled, fileIndexStore(labelCache, dir));
      await first.load();
      await first.saveIndex();
      const cold = first.entries.find(e => e.commit === entry.commit)!.roles.agent.classification!;
      assert.equal(cold.strength, 'label');
      assert.equal(cold.category, 'infra-transient');
      const again = new Workspace(dir, nodeFileSource(dir), labelled, fileIndexStore(labelCache, dir));
      const { warm, revalidated } = await again.open();
      assert.equal(warm, true);
      const reopened = again.entries.find(e => e.commit === entry.commit)!.roles.agent.classification!;
      assert.equal(reopened.strength, 'label', 'the run still says the category was set by hand');
      assert.equal(reopened.category, 'infra-transient');
      assert.deepEqual(shape(again), shape(first));
      assert.deepEqual(await revalidated, { kind: 'none' });
    } finally {
      rmSync(labelCache, { recursive: true, force: true });
    }
  });

  it('ignores an index it cannot use (corrupt, another folder, another build) and loads cold', async () => {
    const c2 = mkdtempSync(path.join(tmpdir(), 'bt-ws-cache2-'));
    try {
      const w = open(dir, c2);
      await w.load();
      await w.saveIndex();
      for (const f of require('node:fs').readdirSync(c2) as string[]) writeFileSync(path.join(c2, f), '{"version": 2, "files": {"x": ');
      const again = open(dir, c2);
      const { warm } = await again.open();
      assert.equal(warm, false);
      assert.ok(again.lastLoad.read > 100);
      assert.deepEqual(shape(again), shape(w));
      // An index of another folder is never used for this one.
      const other = new Workspace(dir, nodeFileSource(dir), settings, fileIndexStore(c2, '/somewhere/else'));
      assert.equal((await other.open()).warm, false);
      // Their delayed index writes, now: one landing after the folder is removed would make it again.
      await Promise.all([w.saveIndex(), again.saveIndex(), other.saveIndex()]);
    } finally {
      rmSync(c2, { recursive: true, force: true });
    }
  });

  it('names an agent-role run that states no agent after the agent runs of its commit (one agent, one entry)', async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'bt-agent-'));
    try {
      const commit = 'a'.repeat(40),
        parent = 'b'.repeat(40);
      // ISO-Bench's flat agent result names no agent; the agent run folder does; the runner's rerun does too.
      mkdirSync(path.join(d, 'results'), { recursive: true });
      writeFileSync(
        path.join(d, 'results/aaaaaaaa_agent_result.json'),
        JSON.stringify({
          human_commit: 'aaaaaaaa',
          human_commit_full: commit,
          parent_commit: parent,
          model: 'facebook/opt-125m',
          status: 'success',
          error: null,
          duration_s: 10,
          metrics: { throughput_tok_s: 5 },
          raw_output: '',
          timestamp: '2026-01-18 15:16:00',
        }),
      );
      const item = path.join(d, 'state/runs/vllm/claude_code/default/2026-01-10_12-00-00/vllm_core-0000');
      mkdirSync(item, { recursive: true });
      writeFileSync(path.join(item, 'journal.json'), JSON.stringify({ commits: { pre: parent, human: commit }, status: 'success' }));
      writeFileSync(path.join(item, 'model_patch.diff'), 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n');
      runnerResult(d, commit, 'agent', { throughput_tok_s: 6 });
      const w = open(d);
      await w.load();
      const agents = w.entries.filter(e => e.commit === commit).map(e => e.agent);
      assert.deepEqual(agents, ['claude_code']);
      const flat = w.result.runs.find(r => r.provenance.file === 'results/aaaaaaaa_agent_result.json')!;
      assert.equal(flat.agent, 'claude_code');
      assert.ok(
        flat.problems.some(p => p.field === 'agent' && /agent runs of this commit/.test(p.message)),
        JSON.stringify(flat.problems),
      );
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('one time format', () => {
  it('shows zoned times in UTC and naive ones as written, both as YYYY-MM-DD HH:MM', () => {
    assert.equal(formatWhen('2026-11-20T10:00:00Z'), '2026-11-20 10:00 UTC');
    assert.equal(formatWhen('2026-11-20T12:30:00.123+02:00'), '2026-11-20 10:30 UTC');
    assert.equal(formatWhen('2026-01-18 15:16:00'), '2026-01-18 15:16');
    assert.equal(formatWhen('2026-01-18T15:16'), '2026-01-18 15:16');
    assert.equal(formatWhen('20261120-100000'), '2026-11-20 10:00');
    assert.equal(formatWhen(null), '');
    assert.equal(formatWhen('yesterday'), 'yesterday');
  });
});

describe('CLI on the Workspace [ISO-Bench data]', function () {
  this.timeout(120_000);
  it('classify --cache DIR gives the same answer from its index, and reads only what changed', () => {
    requireCorpus();
    const cache = mkdtempSync(path.join(tmpdir(), 'bt-cli-cache-'));
    try {
      const plain = runCli('classify', ISOBENCH, '--json');
      const first = runCli('classify', ISOBENCH, '--json', '--cache', cache);
      const second = runCli('classify', ISOBENCH, '--json', '--cache', cache);
      for (const r of [plain, first, second]) assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(first.stdout), JSON.parse(plain.stdout));
      assert.deepEqual(JSON.parse(second.stdout), JSON.parse(plain.stdout));
      assert.ok(
        require('node:fs')
          .readdirSync(cache)
          .some((f: string) => /^index-[0-9a-f]{16}\.jsonl$/.test(f)),
        'the index is in the cache folder',
      );
      const bad = runCli('classify', ISOBENCH, '--cache', path.join(ISOBENCH, 'README.md'));
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /--cache .*README\.md: cannot use it as a folder/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('--help prints the usage once and exits 0, for the tool and for each command', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['classify', '--help'], ['run', '--help']]) {
      const r = runCli(...args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout.match(/^usage: bench-triage/gm)?.length, 1, args.join(' '));
      assert.doesNotMatch(r.stdout + r.stderr, /unknown option/);
    }
  });
});
