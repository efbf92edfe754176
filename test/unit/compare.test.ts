import * as assert from 'node:assert/strict';
import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { scan } from '../../src/core/ingest';
import { classifyRuns } from '../../src/core/classify';
import { comparability, improvement, triage, verdictOf, type CommitTriage } from '../../src/core/compare';
import { buildReport, renderMarkdown } from '../../src/core/report';
import type { Run } from '../../src/core/model';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { ISOBENCH, requireCorpus } from './helpers';

const run = (role: Run['role'], metrics: Record<string, number>, over: Partial<Run> = {}): Run => ({
  id: `f#${role}`, commit: 'a'.repeat(40), role, source: 'modal', agent: role === 'agent' ? 'claude_code' : null, status: 'success', originalStatus: 'success',
  error: null, errorField: null, metrics, counts: {}, logs: [], logFiles: [], model: 'm', command: null, benchmarkMode: 'serving', gpuConfig: 'H100:1',
  image: null, fixes: [], version: null, parent: null, timestamp: null, durationS: null, provenance: { file: 'f', schema: 'S1', pointer: '' }, ...over,
});

describe('compare', () => {
  it('signs improvements by direction', () => {
    assert.equal(improvement('ttft_mean_ms', 100, 90), 10);
    assert.equal(improvement('output_throughput_tok_s', 100, 90), -10);
    assert.equal(improvement('total_input_tokens', 100, 90), null);
  });

  it('judges agent vs human with a tie band', () => {
    const b = run('baseline', { ttft_mean_ms: 100 }), h = run('human', { ttft_mean_ms: 90 }), a = run('agent', { ttft_mean_ms: 88 });
    const v = verdictOf(h, a, b, 2);
    assert.equal(v.verdict, 'win');
    assert.ok(Math.abs(v.comparison!.agentVsHuman - 2.222) < 0.01);
    assert.equal(verdictOf(h, a, b, 5).verdict, 'tie');
    assert.equal(verdictOf(h, run('agent', { ttft_mean_ms: 95 }), b, 2).verdict, 'loss');
    assert.equal(verdictOf(h, run('agent', {}, { status: 'failed' }), b, 2).verdict, 'agent-failed');
    assert.equal(verdictOf(null, a, b, 2).verdict, 'n/a');
  });

  it('checks comparability and names the reasons', () => {
    const ok = comparability({ baseline: run('baseline', {}), human: run('human', {}), agent: run('agent', {}) });
    assert.deepEqual(ok, { ok: true, reasons: [] });
    const bad = comparability({ baseline: run('baseline', {}, { gpuConfig: 'H100:2' }), human: run('human', {}, { model: 'other' }), agent: run('agent', {}, { source: 'docker' }) });
    assert.equal(bad.ok, false);
    assert.ok(bad.reasons.some(r => /^models differ/.test(r)));
    assert.ok(bad.reasons.some(r => /^GPU configurations differ/.test(r)));
    assert.ok(bad.reasons.some(r => /^source pipelines differ/.test(r)));
    // The Docker flat pipeline ran a different client per role (research §4.2).
    const docker = (role: Run['role']) => run(role, {}, { source: 'docker', model: 'meta-llama/Llama-3.1-8B-Instruct' });
    const d = comparability({ baseline: docker('baseline'), human: docker('human'), agent: docker('agent') });
    assert.ok(d.reasons.some(r => /benchmark workloads differ/.test(r)));
  });
});

describe('report on the real corpus', function () {
  this.timeout(120000);
  let entries: CommitTriage[];
  let runsById: Map<string, Run>;
  before(async () => {
    requireCorpus();
    const r = await scan(nodeFileSource(ISOBENCH));
    const c = await classifyRuns(r, p => fsp.readFile(path.join(ISOBENCH, p), 'utf8'));
    entries = triage(r.runs, c, { commits: new Map(r.commits.map(k => [k.hash, k])) });
    runsById = new Map(r.runs.map(x => [x.id, x]));
  });

  it('the 3-way table reproduces the human and agent numbers of the source files', () => {
    const rep = buildReport(entries, 'isobench', 2);
    assert.ok(rep.threeWay.length >= 10, `${rep.threeWay.length} rows`);
    const numbersIn = (file: string) => {
      const out: number[] = [];
      const walk = (v: unknown) => { if (typeof v === 'number') out.push(v); else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x); };
      walk(JSON.parse(readFileSync(path.join(ISOBENCH, file), 'utf8')));
      return out;
    };
    for (const row of rep.threeWay) {
      const e = entries.find(x => x.commit === row.commit && x.agent === row.agent)!;
      for (const [role, value] of [['human', row.human], ['agent', row.agentValue]] as const) {
        const file = e.roles[role].run!.provenance.file;
        const nums = numbersIn(file);
        assert.ok(nums.some(n => n === value || Math.abs(n * 1000 - value) < 1e-9), `${row.commit.slice(0, 8)} ${role} ${row.metric}=${value} is in ${file}`);
      }
    }
  });

  it('flags incomparable triples with their reasons and keeps them apart', () => {
    const rep = buildReport(entries, 'isobench', 2);
    const inc = rep.threeWay.filter(t => !t.comparable);
    assert.ok(inc.length > 0);
    for (const t of inc) assert.ok(t.reasons.length > 0);
    const md = renderMarkdown(rep);
    assert.match(md, /\| no: [^|]*differ/);
    for (const h of ['## Summary by outcome', '## Successful 3-way comparisons', '## Failures', '## Action plan']) assert.ok(md.includes(h), h);
    assert.ok(rep.summary.reduce((a, s) => a + s.count, 0) === entries.length);
  });

  it('the tie band changes verdicts as expected', () => {
    const verdicts = (band: number) => buildReport(triage([...runsById.values()], new Map(entries.flatMap(e => Object.values(e.roles).filter(v => v.classification).map(v => [v.run!.id, v.classification!]))), { tieBand: band }), 'x', band).threeWay.map(t => t.verdict);
    const narrow = verdicts(0), wide = verdicts(1000);
    assert.ok(narrow.some(v => v === 'win' || v === 'loss'), 'with no tie band something wins or loses');
    assert.ok(wide.every(v => v === 'tie'), 'with a huge band everything is a tie');
    const mid = verdicts(2);
    assert.ok(mid.filter(v => v === 'tie').length >= narrow.filter(v => v === 'tie').length);
  });

  it('lists every failure in the action plan under its fixability', () => {
    const rep = buildReport(entries, 'isobench', 2);
    const planned = new Set(Object.values(rep.actionPlan).flat());
    for (const f of rep.failures) assert.ok(planned.has(f.commit), f.commit);
  });
});
