import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import mt19937 from '@stdlib/random-base-mt19937';
import { quantileSorted } from 'simple-statistics';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { comparability, compareAttempts, mannWhitney, bootstrapRelativeChange, planRepeats, relativeChange, type CommitTriage } from '../../src/core/compare';
import { buildReport, renderMarkdown } from '../../src/core/report';
import { mdText } from '../../src/core/report/markdown';
import { parsePrintedMetrics, unitFamily, chooseHeadline } from '../../src/core/metrics';
import type { Run } from '../../src/core/model';
import { commandWorkload } from '../../src/core/perfcmd';
import { analyze } from '../../src/app/folderAnalysis';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { CASES, writeVerdictFixture } from '../support/verdictFixture';
import { ISOBENCH, requireCorpus, runCli } from './helpers';

const run = (role: Run['role'], metrics: Record<string, number>, over: Partial<Run> = {}): Run => ({
  id: `f#${role}#${Math.random()}`,
  commit: 'a'.repeat(40),
  role,
  source: 'modal',
  agent: role === 'agent' ? 'claude_code' : null,
  project: 'vllm',
  status: 'success',
  originalStatus: 'success',
  error: null,
  errorField: null,
  metrics,
  metricSources: {},
  counts: {},
  logs: [],
  logFiles: [],
  model: 'm',
  command: null,
  benchmarkMode: 'serving',
  gpuConfig: 'H100:1',
  image: null,
  fixes: [],
  version: null,
  parent: null,
  timestamp: null,
  durationS: null,
  problems: [],
  provenance: { file: 'f', schema: 'S1', pointer: '' },
  ...over,
});

/** Exact two-sided Mann–Whitney p by brute force over every relabelling (an independent recomputation). */
function bruteForceP(x: number[], y: number[]): number {
  const all = [...x, ...y],
    n = all.length,
    k = x.length;
  const u = (xs: number[], ys: number[]) => xs.reduce((s, a) => s + ys.reduce((t, b) => t + (a > b ? 1 : a === b ? 0.5 : 0), 0), 0);
  const u0 = u(x, y),
    mu = (k * (n - k)) / 2;
  let total = 0,
    extreme = 0;
  for (let mask = 0; mask < 1 << n; mask++) {
    if (popcount(mask) !== k) continue;
    const xs = all.filter((_, i) => mask & (1 << i)),
      ys = all.filter((_, i) => !(mask & (1 << i)));
    total++;
    if (Math.abs(u(xs, ys) - mu) >= Math.abs(u0 - mu) - 1e-9) extreme++;
  }
  return extreme / total;
}
const popcount = (m: number) => {
  let c = 0;
  for (; m; m &= m - 1) c++;
  return c;
};

describe('statistics', () => {
  it('Mann–Whitney U matches a published worked example (SciPy docs: U = 17, exact p = 0.1111)', () => {
    const males = [19, 22, 16, 29, 24],
      females = [20, 11, 17, 12];
    const r = mannWhitney(males, females);
    assert.equal(r.u, 17);
    assert.equal(r.method, 'exact');
    assert.ok(Math.abs(r.p - 0.1111) < 1e-4, String(r.p));
    assert.ok(Math.abs(r.p - bruteForceP(males, females)) < 1e-12);
  });

  it('exact p-values with ties agree with brute-force enumeration', () => {
    for (const [x, y] of [
      [
        [1, 2, 2, 3],
        [2, 3, 4, 4],
      ],
      [
        [5, 5, 5],
        [5, 6, 7],
      ],
      [
        [1, 2, 3, 4],
        [5, 6, 7, 8],
      ],
      [
        [9.18, 9.2, 9.21],
        [9.2, 9.18, 9.25],
      ],
    ] as Array<[number[], number[]]>) {
      assert.ok(Math.abs(mannWhitney(x, y).p - bruteForceP(x, y)) < 1e-12, `${x} vs ${y}`);
    }
    // Fully separated 4 vs 4: p = 2 / C(8,4) = 0.0286, the smallest sample that can reach p < 0.05.
    assert.ok(Math.abs(mannWhitney([1, 2, 3, 4], [5, 6, 7, 8]).p - 2 / 70) < 1e-12);
    assert.ok(mannWhitney([1, 2, 3], [4, 5, 6]).p > 0.05, '3 vs 3 can never be significant');
  });

  it('the normal approximation is close to the exact test where both apply, and is used for large samples', () => {
    const x = Array.from({ length: 9 }, (_, i) => i * 1.3),
      y = Array.from({ length: 9 }, (_, i) => i * 1.3 + 4.1);
    const exact = mannWhitney(x, y);
    assert.equal(exact.method, 'exact');
    const big = mannWhitney(
      Array.from({ length: 60 }, (_, i) => i),
      Array.from({ length: 60 }, (_, i) => i + 10),
    );
    assert.equal(big.method, 'normal');
    // z = (1800 - 1250 - 0.5) / sqrt(60·60·121/12) = 2.8866…, two-sided p = 0.00389
    assert.ok(Math.abs(big.p - 0.003894) < 2e-4, String(big.p));
  });

  it('the bootstrap interval covers a known shift and is reproducible', () => {
    const a = [100, 101, 99, 100, 100],
      b = a.map(v => v * 1.1);
    const ci = bootstrapRelativeChange(a, b, 'higher')!;
    assert.ok(ci[0] > 8 && ci[1] < 12 && ci[0] <= 10 && ci[1] >= 10, String(ci));
    assert.deepEqual(bootstrapRelativeChange(a, b, 'higher'), ci);
    const lower = bootstrapRelativeChange(a, b, 'lower')!;
    assert.ok(lower[1] < 0, 'for a latency a higher value is worse');
    assert.equal(relativeChange(100, 90, 'lower'), 10);
    assert.equal(relativeChange(100, 90, 'higher'), -10);
    // A mean near zero gives no figure (it overflowed to Infinity, and intervals to NaN).
    assert.equal(relativeChange(-5e-324, 1, 'higher'), null);
    assert.equal(relativeChange(1e-300, 1e300, 'lower'), null);
    assert.ok(bootstrapRelativeChange([-5e-324], [0, 1, 5e-324], 'higher', { seed: 1, iterations: 5 })?.every(Number.isFinite) ?? true);
  });

  it('the bootstrap interval is the quantiles of its resamples in numeric order (the native sort keeps every interval as a comparator sort gave it)', () => {
    // The percentile bootstrap spelled out, with the comparator sort it used before.
    const reference = (a: number[], b: number[], dir: 'lower' | 'higher', seed: number, iterations: number) => {
      const rand = mt19937.factory({ seed });
      const draw = (s: number[]) => {
        let sum = 0;
        for (let i = 0; i < s.length; i++) sum += s[Math.floor((rand() / 4294967296) * s.length)];
        return sum / s.length;
      };
      const out: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const r = relativeChange(draw(a), draw(b), dir);
        if (r !== null) out.push(r);
      }
      if (out.length < iterations / 2) return null;
      out.sort((p, q) => p - q);
      const alpha = 1 - 0.95;
      return [quantileSorted(out, alpha / 2), quantileSorted(out, 1 - alpha / 2)];
    };
    // Repeated values, zeros (no interval from a zero mean), negatives and wide ranges.
    const value = fc.oneof(fc.constantFrom(0, 1, 100, -3), fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: -5, max: 5 }));
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 12 }),
        fc.array(value, { minLength: 1, maxLength: 12 }),
        fc.constantFrom('lower' as const, 'higher' as const),
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 1, max: 300 }),
        (a, b, dir, seed, iterations) => {
          assert.deepEqual(bootstrapRelativeChange(a, b, dir, { seed, iterations }), reference(a, b, dir, seed, iterations));
        },
      ),
      { numRuns: 400, seed: 20261129 },
    );
  });

  it('plans repeats interleaved baseline → human → agent', () => {
    assert.deepEqual(
      planRepeats(2)
        .map(p => p.role[0])
        .join(''),
      'bhabha',
    );
    assert.throws(() => planRepeats(0), /whole number/);
  });
});

describe('verdicts on repeated attempts (own fixture)', function () {
  this.timeout(60_000);
  let dir: string;
  let entries: CommitTriage[];
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bt-verdicts-'));
    writeVerdictFixture(dir);
    entries = (await analyze(nodeFileSource(dir))).entries;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (c: { commit: string }) => entries.find(e => e.commit === c.commit)!;

  for (const [name, want] of [
    ['tie', 'tie'],
    ['win', 'win'],
    ['loss', 'loss'],
    ['noisy', 'unknown'],
  ] as const) {
    it(`${name} → ${want}, basis repeats, with an interval and a p-value`, () => {
      const e = entry(CASES[name]);
      assert.equal(e.outcome, 'complete', JSON.stringify(e.comparability));
      assert.equal(e.verdict, want);
      const c = e.comparison!;
      assert.equal(c.basis, 'repeats');
      assert.equal(c.metric, 'output_throughput_tok_s');
      assert.ok(c.ci && c.ci[0] <= c.agentVsHuman && c.agentVsHuman <= c.ci[1], String(c.ci));
      assert.equal(typeof c.p, 'number');
      assert.equal(e.roles.human.attempts.length, CASES[name].human.length, 'every comparable attempt counts');
    });
  }

  it('different workloads → incomparable, with the flag in plain words, and no verdict', () => {
    const e = entry(CASES.workloads);
    assert.equal(e.outcome, 'incomparable');
    assert.equal(e.verdict, 'n/a');
    assert.ok(
      e.comparability.reasons.some(r => r.startsWith('workloads differ on requests:') && r.includes('agent 100 (--num-prompts)') && r.includes('human 1000')),
      e.comparability.reasons.join(' | '),
    );
  });

  it('classify --json gives the contract fields', () => {
    const r = runCli('classify', dir, '--json');
    assert.equal(r.status, 0, r.stderr);
    const list = JSON.parse(r.stdout) as Array<Record<string, any>>;
    const win = list.find(e => e.commit === CASES.win.commit)!;
    assert.equal(win.project, 'vllm');
    assert.equal(win.verdict, 'win');
    assert.equal(win.comparison.basis, 'repeats');
    assert.equal(win.comparison.ci.length, 2);
    assert.ok(win.comparison.p < 0.05);
    const m = win.comparison.metrics.find((x: any) => x.key === 'output_throughput_tok_s');
    for (const k of ['key', 'unit', 'direction', 'baseline', 'human', 'agent', 'agentVsHuman', 'verdict']) assert.ok(k in m, k);
    assert.ok(Array.isArray(win.roles.agent.findings));
    // --metric picks another headline (request throughput is measured by every role too).
    const r2 = runCli('classify', dir, '--json', '--metric', 'serving=request_throughput_req_s');
    assert.equal(JSON.parse(r2.stdout).find((e: any) => e.commit === CASES.win.commit).comparison.metric, 'request_throughput_req_s');
    const bad = runCli('classify', dir, '--metric', 'serving=nope');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /nope is not a metric/);
  });
});

describe('comparability and headline rules', () => {
  it('names the differing workload flags, defaults made explicit', () => {
    const c = comparability({
      baseline: run('baseline', {}, { command: 'python benchmarks/benchmark_serving.py --model m --num-prompts 1000' }),
      human: run('human', {}, { command: 'python benchmarks/benchmark_serving.py --model m --port 9000' }),
      agent: run('agent', {}, { command: 'python benchmarks/benchmark_serving.py --model m --num-prompts 100' }),
    });
    assert.equal(c.ok, false);
    assert.deepEqual(c.reasons, [
      'workloads differ on requests: baseline 1000 (--num-prompts), human 1000 (default of benchmark_serving.py), agent 100 (--num-prompts)',
    ]);
    const w = commandWorkload('python benchmarks/benchmark_serving.py --model m --port 1 --save-result --result-dir /x')!;
    assert.equal(w.flags['--port'], undefined);
    assert.equal(w.values.dataset?.value, 'sharegpt', "the old script's default dataset");
  });

  it('without commands, different metric sets stand in for different script versions — where each role’s printed output is there to say so', () => {
    const printed = (keys: string[]) => ({ metricSources: Object.fromEntries(keys.map(k => [k, { field: 'raw_output', evidence: 'printed' as const }])) });
    const c = comparability({
      human: run('human', { ttft_mean_ms: 1, request_throughput_req_s: 2 }, printed(['ttft_mean_ms', 'request_throughput_req_s'])),
      agent: run('agent', { ttft_mean_ms: 1 }, printed(['ttft_mean_ms'])),
    });
    assert.ok(
      c.reasons.some(r => /script versions \(agent lacks Request throughput\)/.test(r)),
      c.reasons.join(),
    );
    // A role known only from stored fields (its output not kept) is no witness of what its script did not print.
    const fieldsOnly = comparability({
      human: run('human', { ttft_mean_ms: 1, request_throughput_req_s: 2 }, printed(['ttft_mean_ms'])),
      agent: run('agent', { ttft_mean_ms: 1 }),
    });
    assert.ok(!fieldsOnly.reasons.some(r => /script versions/.test(r)), fieldsOnly.reasons.join());
  });

  it('models, GPU configurations and pipelines must match', () => {
    const bad = comparability({
      baseline: run('baseline', {}, { gpuConfig: 'H100:2' }),
      human: run('human', {}, { model: 'other' }),
      agent: run('agent', {}, { provenance: { file: 'g', schema: 'S2', pointer: '' }, source: 'docker' }),
    });
    assert.ok(bad.reasons.some(r => /^models differ/.test(r)));
    assert.ok(bad.reasons.some(r => /^GPU configurations differ/.test(r)));
    assert.ok(bad.reasons.some(r => /^pipelines differ/.test(r)));
  });

  it('headline per mode, user override, and mixed verdicts', () => {
    assert.equal(chooseHeadline(['ttft_mean_ms', 'tpot_mean_ms'], 'serving')!.primary, 'tpot_mean_ms');
    assert.equal(chooseHeadline(['ttft_mean_ms', 'output_throughput_tok_s'], 'serving')!.primary, 'output_throughput_tok_s');
    assert.equal(chooseHeadline(['latency_avg_ms', 'latency_p99_ms'], 'latency')!.primary, 'latency_avg_ms');
    assert.equal(chooseHeadline(['ttft_mean_ms', 'tpot_mean_ms'], 'serving', { serving: 'ttft_mean_ms' })!.primary, 'ttft_mean_ms');
    const note = chooseHeadline(['ttft_mean_ms'], 'serving', { serving: 'latency_avg_ms' })!;
    assert.equal(note.primary, 'ttft_mean_ms');
    assert.match(note.note!, /latency_avg_ms .* was not measured by every role/);
    const c = compareAttempts(
      { baseline: [], human: [run('human', { ttft_mean_ms: 100, tpot_mean_ms: 20 })], agent: [run('agent', { ttft_mean_ms: 103, tpot_mean_ms: 18 })] },
      { tieBand: 2, mode: 'serving' },
    )!;
    assert.equal(c.metric, 'tpot_mean_ms');
    assert.equal(c.verdict, 'win');
    assert.equal(c.basis, 'single');
    assert.equal(c.mixed, true);
    assert.equal(c.metrics.find(m => m.key === 'ttft_mean_ms')!.verdict, 'loss');
  });

  it('per-request samples give a per-request basis from single attempts', () => {
    const s = (m: number) => Array.from({ length: 200 }, (_, i) => m + ((i * 37) % 20) - 10);
    const c = compareAttempts(
      {
        baseline: [],
        human: [run('human', { ttft_mean_ms: 100 }, { samples: { ttft_mean_ms: s(100) } })],
        agent: [run('agent', { ttft_mean_ms: 80 }, { samples: { ttft_mean_ms: s(80) } })],
      },
      { tieBand: 2, mode: 'serving' },
    )!;
    assert.equal(c.basis, 'per-request');
    assert.equal(c.verdict, 'win');
    assert.ok(c.p! < 1e-6);
  });
});

describe('verdicts on the real corpus [ISO-Bench data]', function () {
  this.timeout(120000);
  let entries: CommitTriage[];
  let runs: Run[];
  before(async () => {
    requireCorpus();
    const an = await analyze(nodeFileSource(ISOBENCH));
    entries = an.entries;
    runs = an.scan.runs;
  });
  const find = (p: string) => entries.filter(e => e.commit.startsWith(p));

  it('67da5720 is incomparable, with its reasons, and no verdict', () => {
    const [e] = find('67da5720');
    assert.equal(e.outcome, 'incomparable');
    assert.equal(e.verdict, 'n/a');
    assert.ok(
      e.comparability.reasons.some(r => /pipelines differ/.test(r)),
      e.comparability.reasons.join(' | '),
    );
    // Its counts tell the workloads apart (300 requests against 100), not a guess at script versions.
    assert.ok(
      e.comparability.reasons.some(r => /^workloads differ on requests: baseline 300 .* human 100 .* agent 100/.test(r)),
      e.comparability.reasons.join(' | '),
    );
    assert.equal(e.pair.ok, false);
    assert.ok(
      e.pair.reasons.some(r => /^workloads differ on total input tokens: human 25362 .* agent 54127/.test(r)),
      e.pair.reasons.join(' | '),
    );
    assert.equal(e.comparison!.verdict, 'n/a', 'incomparable: no verdict anywhere');
    assert.ok(e.comparison!.metrics.every(m => m.verdict === 'n/a'));
  });

  it('no value labelled tokens/s equals a requests/s figure printed in the same file', () => {
    // Unless the file's own printed block labels that very number tokens/s as well (a3223766
    // generated one token per request, so its output tokens/s equals its requests/s).
    const printedReqS = new Map<string, number[]>();
    const printedTokS = new Map<string, number[]>();
    let checked = 0;
    for (const r of runs) {
      const doc = JSON.parse(readFileSync(path.join(ISOBENCH, r.provenance.file), 'utf8'));
      const key = r.provenance.file;
      if (!printedReqS.has(key)) {
        const req: number[] = [],
          tok: number[] = [];
        const walk = (v: unknown) => {
          if (typeof v === 'string') {
            const m = parsePrintedMetrics(v).metrics;
            for (const [k, x] of Object.entries(m)) (k === 'request_throughput_req_s' ? req : unitFamily(k) === 'tok/s' ? tok : []).push(x);
          } else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
        };
        walk(doc);
        printedReqS.set(key, req);
        printedTokS.set(key, tok);
      }
      for (const [k, v] of Object.entries(r.metrics)) {
        if (unitFamily(k) !== 'tok/s') continue;
        checked++;
        if (printedTokS.get(key)!.some(t => Math.abs(t - v) <= 0.006)) continue;
        for (const rq of printedReqS.get(key)!) assert.ok(Math.abs(v - rq) > 0.006, `${key} ${r.role} ${k} = ${v} is the requests/s printed there`);
      }
    }
    assert.ok(checked > 100, `${checked} tokens/s values checked`);
    const six = runs.filter(r => r.commit.startsWith('6ce01f30') && r.provenance.schema === 'S7');
    assert.equal(six.length, 3);
    for (const r of six) {
      assert.ok(r.metrics.request_throughput_req_s > 9 && r.metrics.request_throughput_req_s < 9.3);
      assert.equal(r.metrics.throughput_tok_s, undefined);
    }
  });

  it('58eee5f2 shows TTFT and TPOT with their own verdicts, and the headline names its metric', () => {
    const [e] = find('58eee5f2');
    const c = e.comparison!;
    const ttft = c.metrics.find(m => m.key === 'ttft_mean_ms')!,
      tpot = c.metrics.find(m => m.key === 'tpot_mean_ms')!;
    assert.equal(ttft.verdict, 'loss');
    assert.equal(tpot.verdict, 'win');
    assert.ok(ttft.headline && tpot.headline);
    assert.equal(c.mixed, true);
    assert.ok(c.metric && c.label, 'the headline names its metric');
    const r = runCli('classify', ISOBENCH);
    assert.match(r.stdout, new RegExp(`58eee5f2 claude_code +complete +${c.verdict} on ${c.label.replace(/[()]/g, '.')}`));
  });

  it('every entry has a project, and vllm and sglang are both there', () => {
    for (const e of entries) assert.ok(e.project && e.project !== 'unknown', `${e.commit} has no project`);
    const projects = new Set(entries.map(e => e.project));
    assert.ok(projects.has('vllm') && projects.has('sglang'), [...projects].join());
  });

  it('9badee53: a conflicting full hash is a finding, never a second commit', () => {
    const es = find('9badee53');
    assert.equal(new Set(es.map(e => e.commit)).size, 1);
    assert.ok(es[0].commit.startsWith('9badee53decb'));
    assert.ok(
      es[0].conflicts.some(c => /9badee53d8ec.*no dataset or mapping knows.*same parent/.test(c)),
      es[0].conflicts.join(),
    );
    const scanJson = JSON.parse(runCli('scan', ISOBENCH, '--json').stdout);
    assert.ok(scanJson.conflicts.some((c: any) => c.field === 'commit_full' && c.stated.startsWith('9badee53d8ec') && c.resolvedTo.startsWith('9badee53decb')));
  });

  it('the report keeps projects apart and its 3-way tables hold comparable commits only', () => {
    const rep = buildReport(entries, 'isobench', { tieBand: 2 });
    assert.deepEqual(
      rep.projects.map(p => p.project),
      ['sglang', 'vllm'],
    );
    for (const p of rep.projects) {
      for (const t of p.threeWay) {
        assert.ok(t.comparable, `${t.commit} is in the 3-way table but agent and human are not comparable`);
        const e = entries.find(x => x.commit === t.commit && x.agent === t.agent)!;
        assert.ok(e.outcome === 'complete' || e.outcome === 'agent-vs-human', e.outcome);
        // The baseline columns are filled only where the baseline is comparable too.
        if (e.outcome === 'agent-vs-human') assert.equal(t.baseline, null);
      }
      for (const i of p.incomparable) assert.ok(i.reasons.length > 0);
    }
    const vllm = rep.projects.find(p => p.project === 'vllm')!;
    assert.ok(vllm.threeWay.length >= 10, `${vllm.threeWay.length} rows`);
    assert.ok(vllm.incomparable.some(i => i.commit.startsWith('67da5720')));
    const md = renderMarkdown(rep);
    for (const h of [
      '## sglang',
      '## vllm',
      '### 3-way comparisons',
      '### Not comparable',
      '### Verdicts per headline metric',
      '### Failures',
      '### Action plan',
    ])
      assert.ok(md.includes(h), h);
    const vllmSection = md.slice(md.indexOf('## vllm'));
    const table = vllmSection.slice(vllmSection.indexOf('### 3-way comparisons'), vllmSection.indexOf('### Verdicts per agent'));
    assert.ok(!table.includes('67da5720'), '67da5720 must not be in the 3-way table');
    // On request, incomparable commits are counted and marked.
    const inc = buildReport(entries, 'isobench', { tieBand: 2, includeIncomparable: true });
    assert.ok(inc.projects.find(p => p.project === 'vllm')!.threeWay.some(t => !t.comparable && t.commit.startsWith('67da5720')));
  });

  it("the 3-way numbers are the source files' own numbers", () => {
    const rep = buildReport(entries, 'isobench', { tieBand: 2 });
    for (const row of rep.projects.flatMap(p => p.threeWay)) {
      const e = entries.find(x => x.commit === row.commit && x.agent === row.agent)!;
      if (e.roles.human.attempts.length > 1 || e.roles.agent.attempts.length > 1) continue;
      for (const [role, value] of [
        ['human', row.human],
        ['agent', row.agentValue],
      ] as const) {
        const file = e.roles[role].run!.provenance.file;
        const text = readFileSync(path.join(ISOBENCH, file), 'utf8');
        assert.ok(text.includes(String(value)) || text.includes(value.toFixed(2)), `${row.commit.slice(0, 8)} ${role} ${row.metric}=${value} is in ${file}`);
      }
    }
  });
});

describe('Markdown escaping in the report', () => {
  it('data cannot split a row, start a heading, open a link or pass HTML', () => {
    const s = mdText('a|b\n# heading <script>alert(1)</script> [x](javascript:1) `code` *bold*');
    assert.ok(!s.includes('\n'));
    assert.ok(!/(^|[^\\])\|/.test(s), s);
    assert.ok(!s.includes('<script>'));
    assert.ok(!/(^|[^\\])\[/.test(s), s);
    assert.ok(!/(^|[^\\])`/.test(s), s);
  });
});
