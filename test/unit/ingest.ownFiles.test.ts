import * as assert from 'node:assert/strict';
import { scan } from '../../src/core/ingest';
import { memorySource } from './helpers';

const HASH = 'ab'.repeat(20);
const result = (status: string, startedAt: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    schema: 'bench-triage.run/v1',
    commit: HASH,
    role: 'human',
    status,
    error: status === 'success' ? null : 'refused: no NVIDIA container runtime on the host',
    metrics: status === 'success' ? { request_throughput: 5 } : {},
    command: 'python3 benchmarks/benchmark_serving.py --model facebook/opt-125m',
    startedAt,
    ...extra,
  });

describe('the tool’s own files and refused runs (issue 24, items 1 and 5)', () => {
  it('nothing under .bench-triage/ but results and build records is read as a result: campaigns, claims, labels, rules are the tool’s own', async () => {
    const r = await scan(
      memorySource({
        '.bench-triage/campaigns/c-1/campaign.json': JSON.stringify({ schema: 'bench-triage.campaign/v1', id: 'c-1', items: [] }),
        '.bench-triage/campaigns/c-2/campaign.json': '{"schema": "bench-triage.campaign/v1", "id"',
        '.bench-triage/campaigns/c-1/runs/1.json': JSON.stringify({ schema: 'bench-triage.campaign-run/v1', n: 1, state: 'queued' }),
        '.bench-triage/labels.json': JSON.stringify({ schema: 'bench-triage.labels/v1', labels: [] }),
        '.bench-triage/rules.json': JSON.stringify({ rules: [] }),
        '.bench-triage/runs/abababab/human/r1/result.json': result('success', '2026-01-01T00:00:00Z'),
      }),
    );
    const kinds = Object.fromEntries(r.files.map(f => [f.path, f.kind === 'nonRun' ? `nonRun:${f.what}` : f.kind]));
    assert.deepEqual(kinds, {
      '.bench-triage/campaigns/c-1/campaign.json': 'nonRun:tool-record',
      '.bench-triage/campaigns/c-2/campaign.json': 'nonRun:tool-record',
      '.bench-triage/campaigns/c-1/runs/1.json': 'nonRun:tool-record',
      '.bench-triage/labels.json': 'nonRun:tool-record',
      '.bench-triage/rules.json': 'nonRun:tool-record',
      '.bench-triage/runs/abababab/human/r1/result.json': 'run',
    });
  });

  it('a rerun the host refused is no attempt: the role keeps its earlier run', async () => {
    const r = await scan(
      memorySource({
        '.bench-triage/runs/abababab/human/r1/result.json': result('success', '2026-01-01T00:00:00Z'),
        '.bench-triage/runs/abababab/human/r2/result.json': result('refused', '2026-02-01T00:00:00Z'),
      }),
    );
    assert.equal(r.runs.length, 1);
    assert.equal(r.runs[0].status, 'success');
    const refused = r.files.find(f => f.path.endsWith('r2/result.json'))!;
    assert.equal(refused.kind === 'nonRun' && refused.what, 'refused-run');
  });
});

describe('history is findable: ever=CATEGORY (issue 24, item 3) [ISO-Bench data]', function () {
  this.timeout(120_000);
  it('on ISO-Bench, ever=wheel-missing picks every commit with a wheel-missing attempt, more than the latest outcome shows', async () => {
    const { ISOBENCH, requireCorpus, runCli } = await import('./helpers');
    const { analyzeFolder } = await import('../../src/cli/analyzeFolder');
    const { parseSelector, selectEntries } = await import('../../src/core/campaign/plan');
    requireCorpus();
    const an = await analyzeFolder(ISOBENCH, { labels: [] });
    // From the runs themselves: every run whose own classification is wheel-missing, whatever came after it.
    const expected = new Set(an.scan.runs.filter(r => an.classifications.get(r.id)?.category === 'wheel-missing').map(r => r.commit));
    const categoryOf = (id: string) => an.classifications.get(id)?.category ?? null;
    const ever = new Set(selectEntries(an.entries, parseSelector('ever=wheel-missing'), categoryOf).map(e => e.commit));
    const latest = new Set(selectEntries(an.entries, parseSelector('category=wheel-missing'), categoryOf).map(e => e.commit));
    assert.deepEqual([...ever].sort(), [...expected].sort());
    assert.ok(ever.size > latest.size, `${ever.size} commits ever, ${latest.size} by their latest outcome`);
    for (const c of latest) assert.ok(ever.has(c));
    const cli = runCli('classify', ISOBENCH, '--json', '--select', 'ever=wheel-missing');
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual([...new Set((JSON.parse(cli.stdout) as Array<{ commit: string }>).map(e => e.commit))].sort(), [...expected].sort());
  });
});

describe('earlier attempts and reruns that strand a role (issue 24, items 2 and 3) [ISO-Bench data]', function () {
  this.timeout(120_000);
  it('on ISO-Bench, a commit whose latest outcome is not wheel-missing names it among its earlier categories', async () => {
    const { ISOBENCH, requireCorpus } = await import('./helpers');
    const { analyzeFolder } = await import('../../src/cli/analyzeFolder');
    const { earlierCategories, failedAttempts } = await import('../../src/core/compare');
    requireCorpus();
    const an = await analyzeFolder(ISOBENCH, { labels: [] });
    const categoryOf = (id: string) => an.classifications.get(id)?.category ?? null;
    const hidden = an.entries.filter(e => e.outcome !== 'wheel-missing' && failedAttempts(e, categoryOf).some(a => a.category === 'wheel-missing'));
    assert.ok(hidden.length > 0, 'some commits once failed for a missing wheel and show another outcome');
    for (const e of hidden) {
      // Counts are attempts of that category that are not the shown ones.
      for (const x of earlierCategories(e, categoryOf))
        assert.equal(x.count, failedAttempts(e, categoryOf).filter(a => !a.latest && a.category === x.category).length);
    }
  });

  it('rerunning one role strands the others when another pipeline measured them; all three or own-runner roles do not', async () => {
    const { strandedBy } = await import('../../src/core/compare');
    const { analyzeFolder } = await import('../../src/cli/analyzeFolder');
    const { ISOBENCH, requireCorpus } = await import('./helpers');
    requireCorpus();
    const an = await analyzeFolder(ISOBENCH, { labels: [] });
    const e = an.entries.find(x => x.roles.human.run && x.roles.baseline.run && x.roles.human.run.provenance.schema !== 'BT1')!;
    assert.ok(e, 'an ISO-Bench commit with human and baseline runs');
    assert.deepEqual(
      strandedBy(e, ['agent']).map(x => x.role),
      ['baseline', 'human'],
    );
    assert.deepEqual(strandedBy(e, ['baseline', 'human', 'agent']), []);
    // Once the other roles are the runner's own, a single-role rerun is comparable with them.
    const own = structuredClone(e);
    for (const r of ['baseline', 'human'] as const) own.roles[r].run!.provenance.schema = 'BT1';
    assert.deepEqual(strandedBy(own, ['agent']), []);
  });
});
