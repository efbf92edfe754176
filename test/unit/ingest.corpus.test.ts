import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scan, summarize, type ScanResult } from '../../src/core/ingest';
import { isKnownMetricKey, metricDef } from '../../src/core/metrics';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { ISOBENCH, requireCorpus, walk } from './helpers';

const RESULTS = 'archive/results';
const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(ISOBENCH, rel), 'utf8'));

describe('ingest: the real ISO-Bench corpus [ISO-Bench data]', function () {
  let r: ScanResult;
  before(async function () {
    requireCorpus();
    r = await scan(nodeFileSource(ISOBENCH));
  });

  it('counts every *.json under archive/results exactly once', () => {
    const onDisk = walk(path.join(ISOBENCH, RESULTS))
      .filter(p => p.endsWith('.json'))
      .map(p => `${RESULTS}/${p}`)
      .sort();
    const recorded = r.files
      .filter(f => f.path.startsWith(RESULTS + '/') && f.path.endsWith('.json'))
      .map(f => f.path)
      .sort();
    assert.ok(onDisk.length > 600, `expected the full corpus, found ${onDisk.length} files`);
    assert.deepEqual(recorded, onDisk);
    assert.equal(new Set(recorded).size, recorded.length, 'no file is counted twice');
    const kinds = new Set(r.files.map(f => f.kind));
    assert.ok(kinds.has('run') && kinds.has('nonRun') && kinds.has('corrupt'));
  });

  it('keeps unknown files at most 2 %, each with a reason', () => {
    const inResults = r.files.filter(f => f.path.startsWith(RESULTS + '/') && f.path.endsWith('.json'));
    const unknown = inResults.filter(f => f.kind === 'unknown');
    assert.ok(unknown.length / inResults.length <= 0.02, `${unknown.length}/${inResults.length} unknown`);
    for (const u of unknown) assert.ok(u.kind === 'unknown' && u.reason.length > 10);
  });

  it('lists the invalid bfdb1ba5 result as corrupt with the parser position', () => {
    const f = r.files.find(x => x.path.endsWith('results/docker/bfdb1ba5_result.json'));
    assert.ok(f && f.kind === 'corrupt', JSON.stringify(f));
    const text = fs.readFileSync(path.join(ISOBENCH, f.path), 'utf8');
    assert.ok(f.offset !== null && f.line !== null && f.column !== null);
    assert.equal(text[f.offset], ',', 'the offset points at the stray comma');
    assert.match(f.error, /line \d+ column \d+/);
  });

  it('recognises progress logs, reports, exports and HF record lists and never counts them as runs', () => {
    const kindOf = (suffix: string) => r.files.find(f => f.path.endsWith(suffix));
    assert.deepEqual(kindOf('exports/benchmark_summary.json'), { kind: 'nonRun', path: kindOf('exports/benchmark_summary.json')!.path, what: 'export' });
    assert.equal((kindOf('hf_upload_records.json') as { what?: string }).what, 'hf-records');
    assert.equal((kindOf('omniperf_results_v2/omniperf_report_vllm.json') as { what?: string }).what, 'report');
    const progress = r.files.filter(f => f.kind === 'nonRun' && f.what === 'progress-log');
    assert.equal(progress.length, walk(path.join(ISOBENCH, RESULTS)).filter(p => /_progress\.json$/.test(p)).length);
    const runFiles = new Set(r.runs.map(x => x.provenance.file));
    for (const f of r.files) if (f.kind !== 'run') assert.ok(!runFiles.has(f.path), `${f.path} yields runs but is ${f.kind}`);
  });

  it('S2: role from the file name, commit from human_commit_full', () => {
    const s2 = r.runs.filter(x => x.provenance.schema === 'S2');
    assert.ok(s2.length > 100);
    for (const run of s2) {
      const m = /_(baseline|human|agent)_result\.json$/.exec(run.provenance.file);
      assert.equal(run.role, m?.[1], run.provenance.file);
      const raw = read(run.provenance.file);
      assert.equal(run.commit, raw.human_commit_full ?? raw.human_commit);
    }
    // All three roles of one commit share the human commit key.
    const roles = new Set(s2.filter(x => x.commit.startsWith('22dd9c27')).map(x => x.role));
    assert.ok(roles.has('baseline') && roles.has('human'));
  });

  it('S1: baseline/human/agent runs from the field prefixes, metrics equal to the file', () => {
    const file = 'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/fe66b347/benchmark_result.json';
    const raw = read(file);
    const runs = r.runs.filter(x => x.provenance.file === file);
    assert.deepEqual(
      runs.map(x => x.role),
      ['baseline', 'human', 'agent'],
    );
    for (const run of runs) {
      assert.equal(run.status, 'success');
      const src = raw.result[`${run.role}_metrics`];
      assert.equal(run.metrics.ttft_mean_ms, src.ttft_mean);
      assert.equal(run.metrics.tpot_mean_ms, src.tpot_mean);
    }
    assert.equal(runs[2].agent, 'claude_code');
  });

  it('S10 "patched" is the human commit; S9 "patched" is the agent patch', () => {
    const s10 = r.runs.filter(x => x.provenance.schema === 'S10');
    assert.ok(s10.some(x => x.role === 'human'));
    assert.ok(s10.every(x => x.role !== 'agent'));
    const s10human = s10.find(x => x.role === 'human' && x.status === 'success')!;
    const raw10 = read(s10human.provenance.file);
    assert.equal(s10human.provenance.pointer, 'result.patched_metrics');
    for (const [k, v] of Object.entries(raw10.result.patched_metrics))
      if (k === 'ttft_mean' && typeof v === 'number') assert.equal(s10human.metrics.ttft_mean_ms, v);
    const s9 = r.runs.filter(x => x.provenance.schema === 'S9');
    assert.ok(s9.every(x => x.role !== 'human'));
    const s9agent = s9.find(x => x.role === 'agent' && x.status === 'success')!;
    const raw9 = read(s9agent.provenance.file);
    assert.equal(s9agent.metrics.test_avg_ms, raw9.result.patched_output.avg_ms);
    assert.equal(s9agent.agent, 'claude_code');
  });

  it('uses canonical metric keys everywhere and converts S4 seconds to ms', () => {
    for (const run of r.runs) {
      for (const k of Object.keys(run.metrics)) assert.equal(metricDef(k)?.kind, 'metric', `${run.provenance.file}: ${k}`);
      for (const k of Object.keys(run.counts)) assert.equal(metricDef(k)?.kind, 'count', `${run.provenance.file}: ${k}`);
    }
    const file = 'archive/results/2026-01/omniperf_results_3way_claude_code/results/docker/22dd9c27_result.json';
    const raw = read(file);
    const run = r.runs.find(x => x.provenance.file === file)!;
    assert.equal(typeof raw.avg_latency_s, 'number');
    assert.ok(Math.abs(run.metrics.latency_avg_ms - raw.avg_latency_s * 1000) < 1e-6);
    assert.ok(Math.abs(run.metrics.latency_p99_ms - raw.p99_latency_s * 1000) < 1e-6);
  });

  it('knows every metric key present in the corpus (independent walk)', () => {
    const unknown = new Set<string>();
    const visit = (container: unknown, where: string) => {
      if (!container || typeof container !== 'object' || Array.isArray(container)) return;
      for (const [k, v] of Object.entries(container)) if ((typeof v === 'number' || v === null) && !isKnownMetricKey(k)) unknown.add(`${k} (${where})`);
    };
    const topLevelSkip = new Set(['status', 'human_commit', 'commit_hash']);
    for (const f of r.files) {
      if (f.kind !== 'run') continue;
      const v = read(f.path);
      if (v.instance && v.result) {
        for (const k of Object.keys(v.result)) if (/_metrics$/.test(k)) visit(v.result[k], f.path);
        visit(v.result.baseline_output, f.path);
        visit(v.result.patched_output, f.path);
      } else if (v.results) for (const b of Object.values(v.results)) visit((b as { metrics?: unknown }).metrics, f.path);
      else if (v.analysis) for (const role of ['baseline', 'human', 'agent']) visit(v[role]?.metrics, f.path);
      else if (f.schema === 'S1' || f.schema === 'S8')
        for (const k of Object.keys(v)) {
          if (/_metrics$/.test(k)) visit(v[k], f.path);
        }
      else {
        visit(v.metrics, f.path);
        visit(Object.fromEntries(Object.entries(v).filter(([k]) => !topLevelSkip.has(k))), f.path);
      }
    }
    assert.deepEqual([...unknown], []);
  });

  it('resolves commit ids to 40 hex for at least 95 % of runs', () => {
    const full = r.runs.filter(x => /^[0-9a-f]{40}$/.test(x.commit)).length;
    assert.ok(full / r.runs.length >= 0.95, `${full}/${r.runs.length}`);
    // S5 names only 8 hex; it must still resolve.
    const s5 = r.runs.filter(x => x.provenance.schema === 'S5');
    assert.ok(s5.length > 0 && s5.every(x => x.commit.length === 40));
  });

  it('links every claude_code/default agent run whose journal names a commit, and explains the others', () => {
    const base = 'ISO-Bench/state/runs/vllm/claude_code/default';
    const items = walk(path.join(ISOBENCH, base))
      .filter(p => /\/(journal|prompt)\.json$|\/task\.txt$/.test(p))
      .map(p => `${base}/${path.posix.dirname(p)}`);
    const dirs = [...new Set(items)];
    assert.ok(dirs.length > 100);
    const linked = new Map(r.agentRuns.map(a => [a.dir, a]));
    const unlinked = new Map(r.unlinkedAgentRuns.map(u => [u.path, u.reason]));
    for (const dir of dirs) {
      let journal: { commits?: { human?: string } } | null = null;
      try {
        journal = JSON.parse(fs.readFileSync(path.join(ISOBENCH, dir, 'journal.json'), 'utf8'));
      } catch {
        /* missing or empty */
      }
      const human = journal?.commits?.human;
      if (human) {
        const a = linked.get(dir);
        assert.ok(a, `${dir} is linked`);
        assert.ok(a.commit!.startsWith(human.slice(0, 8)) && a.commit!.length >= human.length, `${dir}: ${a.commit} vs ${human}`);
        assert.equal(a.agent, 'claude_code');
        assert.equal(a.model, 'default');
        assert.equal(a.linkedVia, 'journal.json');
      } else {
        assert.ok(linked.has(dir) || (unlinked.get(dir) ?? '').length > 10, `${dir} is linked through another file or listed with a reason`);
      }
    }
    const withPatch = r.agentRuns.filter(a => a.patch && !a.patch.empty);
    assert.ok(withPatch.length > 50);
  });

  it('summarises in the documented --json shape', () => {
    const s = summarize(r, true);
    assert.deepEqual(Object.keys(s.runsByRole).sort(), ['agent', 'baseline', 'human']);
    assert.equal(s.runs, r.runs.length);
    assert.equal(s.runList!.length, r.runs.length);
    assert.deepEqual(Object.keys(s.runList![0]).sort(), [
      'agent',
      'commit',
      'file',
      'fixes',
      'identity',
      'image',
      'metrics',
      'model',
      'originalStatus',
      'pointer',
      'project',
      'role',
      'schema',
      'source',
      'status',
      'timestamp',
      'units',
    ]);
    assert.equal(s.files.parsed + s.files.nonRun + s.files.corrupt.length + s.files.unknown.length, r.files.length);
  });
});
