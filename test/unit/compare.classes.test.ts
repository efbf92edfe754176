import * as assert from 'node:assert/strict';
import { parseSelector, selectEntries } from '../../src/core/campaign/plan';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyze } from '../../src/app/folderAnalysis';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { shownVerdict, type CommitTriage } from '../../src/core/compare';
import { buildReport } from '../../src/core/report';
import { comparisonData, dashboardData } from '../../src/core/report/viewModels';
import { ISOBENCH, requireCorpus } from './helpers';

/**
 * The comparison classes of issue 21, each a general rule in core/compare, checked on the real
 * ISO-Bench files read in place (the commits named are where the campaign's hand-made table and
 * the tool disagreed).
 */
describe('comparisons that hold against the campaign’s own table (ISO-Bench, read in place) [ISO-Bench data]', function () {
  this.timeout(120000);
  let entries: CommitTriage[];
  const at = (c: string) => {
    const e = entries.filter(x => x.commit.startsWith(c));
    assert.equal(e.length, 1, `${c}: ${e.length} entries`);
    return e[0];
  };
  const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ISOBENCH, file), 'utf8'));
  before(async () => {
    requireCorpus();
    entries = (await analyze(nodeFileSource(ISOBENCH))).entries;
  });

  it('1 · agent vs human is answered whenever those two are comparable, whatever the baseline: the 3-way part says why it is left out', () => {
    const e = at('6e36f4fa');
    assert.equal(e.outcome, 'agent-vs-human');
    assert.equal(e.pair.ok, true);
    assert.equal(e.verdict, 'win');
    assert.ok(e.comparison && e.comparison.agentVsHuman > 10, JSON.stringify(e.comparison?.agentVsHuman));
    assert.equal(e.comparison!.baseline, null, 'no baseline column from an incomparable baseline');
    assert.match(e.baselineNote!, /models differ: baseline meta-llama\/Llama-3\.1-8B-Instruct/);
    assert.ok(!e.comparability.reasons.includes('human and agent share no metric'));
    // Everywhere: an entry whose human and agent are comparable has a figure.
    for (const x of entries)
      if (x.pair.ok) assert.ok(x.comparison && Number.isFinite(x.comparison.agentVsHuman), `${x.commit.slice(0, 8)} comparable but no figure`);
  });

  it('2 · the model shown is the one the compared runs ran (each role’s where they differ)', () => {
    const q = at('015069b0');
    const h = read(q.roles.human.run!.provenance.file);
    assert.equal(q.model, 'Qwen/Qwen3-1.7B');
    assert.ok(JSON.stringify(h).includes('Qwen/Qwen3-1.7B'), 'the human run’s file names it');
    assert.equal(at('6ce01f30').model, 'meta-llama/Meta-Llama-3-8B-Instruct', 'the -Instruct suffix of the runs is kept');
    assert.equal(at('3476ed08').model, 'facebook/opt-125m', 'the opt-125m rerun is shown as such');
    const mixed = at('3a243095');
    assert.equal(mixed.model, 'baseline Qwen/Qwen2.5-7B-Instruct · human meta-llama/Meta-Llama-3-8B-Instruct · agent meta-llama/Meta-Llama-3-8B-Instruct');
    assert.deepEqual(mixed.models, {
      baseline: 'Qwen/Qwen2.5-7B-Instruct',
      human: 'meta-llama/Meta-Llama-3-8B-Instruct',
      agent: 'meta-llama/Meta-Llama-3-8B-Instruct',
    });
  });

  it('3 · counts are part of the workload (300 prompts are not 100); the mode comes from what the output is', () => {
    const e = at('67da5720');
    assert.ok(
      e.comparability.reasons.some(r => /^workloads differ on requests: baseline 300 \(the successful requests it recorded\), human 100/.test(r)),
      e.comparability.reasons.join(' | '),
    );
    // 22dd9c27's outputs are latency benchmarks: the Docker flat runner's serving clients are not its reason.
    const l = at('22dd9c27');
    assert.equal(l.roles.human.run!.metrics.latency_avg_ms !== undefined, true);
    assert.ok(!l.comparability.reasons.some(r => /sonnet dataset/.test(r)), l.comparability.reasons.join(' | '));
    // The pipeline ran 100 requests in every role, not the command's 1000: a note, and still comparable.
    const n = at('70b808fe');
    assert.equal(n.outcome, 'complete');
    assert.match(n.comparability.notes![0], /every role ran requests 100 .* not the 1000 its command says/);
  });

  it('4 · a role "lacks" a metric only when its own printed output is there and does not print it', () => {
    const e = at('3a243095');
    assert.ok(!e.comparability.reasons.some(r => /baseline lacks/.test(r)), e.comparability.reasons.join(' | '));
    assert.ok(!Object.values(e.roles.baseline.run!.metricSources).some(m => m.evidence === 'printed' || m.evidence === 'raw'), 'its baseline kept no output');
    const PRINTED: Record<string, RegExp> = {
      'Request throughput': /Request throughput/,
      'Total token throughput': /Total [Tt]oken throughput/,
      'Input token throughput': /Input token throughput/,
    };
    let claims = 0;
    for (const x of entries)
      for (const r of x.comparability.reasons) {
        if (!/script versions/.test(r)) continue;
        for (const m of r.matchAll(/\b(baseline|human|agent) lacks ([^;)]+)/g)) {
          const run = x.roles[m[1] as 'baseline' | 'human' | 'agent'].run!;
          assert.ok(
            Object.values(run.metricSources).some(s => s.evidence === 'printed' || s.evidence === 'raw'),
            `${x.commit.slice(0, 8)} ${m[1]}: no printed output to witness "${m[0]}"`,
          );
          const text = JSON.stringify(read(run.provenance.file));
          for (const label of m[2].split(', '))
            if (PRINTED[label]) assert.doesNotMatch(text, PRINTED[label], `${x.commit.slice(0, 8)}: ${m[1]} printed ${label}`);
          claims++;
        }
      }
    assert.ok(claims > 0, 'the rule still fires where it is true');
  });

  it('5 · the comparable set of attempts is chosen (same pipeline, model, workload), and the choice is said', () => {
    const e = at('fc7b8d1e');
    assert.equal(e.pair.ok, true);
    assert.ok(e.comparison!.agentVsHuman > 15, `${e.comparison!.agentVsHuman}`);
    assert.match(e.chosen!.why, /comparable/);
    assert.ok(e.chosen!.rejected.length > 0);
    assert.equal(e.roles.human.run!.source, e.roles.agent.run!.source, 'one pipeline for both');
  });

  it('6 · incomparable means no verdict anywhere; the numbers stay, marked', () => {
    const e = at('67da5720');
    assert.equal(e.outcome, 'incomparable');
    assert.equal(e.verdict, 'n/a');
    assert.equal(e.comparison!.verdict, 'n/a');
    assert.ok(e.comparison!.metrics.length > 0 && e.comparison!.metrics.every(m => m.verdict === 'n/a'));
    for (const x of entries) if (x.comparison && !x.pair.ok) assert.equal(x.comparison.verdict, 'n/a', x.commit.slice(0, 8));
    const view = comparisonData(e, 2);
    assert.equal(view.pair.ok, false);
    assert.equal(view.runMore, null);
  });

  it('7 · one count per class: the report’s summary and sections, the Dashboard and the tree’s fixability agree; an engine log line is no result', () => {
    const rep = buildReport(entries, 'isobench', { tieBand: 2 });
    for (const p of rep.projects) {
      const mine = entries.filter(e => e.project === p.project);
      for (const s of p.summary) assert.equal(s.count, mine.filter(e => e.outcome === s.outcome).length, `${p.project} ${s.outcome}`);
      assert.equal(p.totals.incomparable, p.incomparable.length, `${p.project}: incomparable count vs its section`);
      assert.equal(p.totals.complete + p.totals.agentVsHuman, p.threeWay.length, `${p.project}: compared entries vs the 3-way table`);
      const tree = new Map<string, number>();
      for (const e of mine)
        if (e.blockingRole) {
          const f = e.roles[e.blockingRole].classification?.fixability ?? 'investigate';
          tree.set(f, (tree.get(f) ?? 0) + 1);
        }
      const dash = dashboardData(rep).projects.find(x => x.project === p.project)!;
      assert.deepEqual(
        Object.fromEntries(dash.byFixability.map(f => [f.fixability, f.count])),
        Object.fromEntries(tree),
        `${p.project}: Dashboard vs tree fixability`,
      );
      // Each Dashboard row opens the tree filtered to what it counts (issue 24, item 8): the same number.
      for (const f of dash.byFixability) assert.equal(selectEntries(mine, parseSelector(`blocked=${f.fixability}`)).length, f.count, `blocked=${f.fixability}`);
      for (const c of dash.byCategory) assert.equal(selectEntries(mine, parseSelector(`outcome=${c.outcome}`)).length, c.count, `outcome=${c.outcome}`);
      assert.ok(
        dash.byFixability.every(f => !/^[a-z-]+$/.test(f.title) || f.title === 'investigate'),
        'fixabilities in words',
      );
    }
    const lat = at('fa63e710');
    assert.ok(!('throughput_tok_s' in lat.roles.baseline.run!.metrics));
    assert.ok(lat.roles.baseline.run!.problems.some(p => /latency benchmark, which prints no throughput/.test(p.message)));
  });

  it('trust you can see: a single-run verdict reads as a hint and offers Run N more', () => {
    const single = entries.find(e => e.pair.ok && e.comparison?.basis === 'single' && ['win', 'loss', 'tie'].includes(e.verdict))!;
    assert.ok(single, 'the corpus has single-run verdicts');
    assert.equal(shownVerdict(single.verdict, single.comparison!.basis), `${single.verdict}?`);
    assert.ok((comparisonData(single, 2).runMore ?? 0) >= 1, 'Run N more is offered as for unknown');
    const rep = buildReport(entries, 'isobench', { tieBand: 2 });
    const v = rep.projects.find(p => p.project === 'vllm')!;
    assert.ok(
      Object.values(v.agents).some(c => c.single > 0),
      'the verdict tables count single-run hints',
    );
  });
});
