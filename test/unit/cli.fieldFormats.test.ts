import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { aiperfExport, guidellmReport, pyJson, sglangLine, vllmLatency, vllmServeCli, vllmThroughput } from '../../scripts/field-formats.mjs';
import { runCli } from './helpers';

/**
 * A campaign of one's own, written by the field's tools (no ISO-Bench wrapper), read as a user
 * would: `scan --json --runs` and `classify --json` of the built CLI.
 */
describe('bring your own results: a folder of vllm bench serve, SGLang, GuideLLM and AIPerf files through the CLI', () => {
  let dir: string;
  const put = (rel: string, text: string) => {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
  const REPEATS = 'a0a0a0a1';
  const DETAILED = 'b0b0b0b2';
  const PROMPTS = 'c0c0c0c3';
  const RATES = 'd0d0d0d4';
  const DATASETS = 'e0e0e0e5';
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bt-field-'));
    // Five `vllm bench serve` attempts a role, the agent's 20 % faster: a `repeats` verdict.
    for (const [role, speed] of [
      ['baseline', 1.1],
      ['human', 1.0],
      ['agent', 0.8],
    ] as const)
      for (let k = 1; k <= 5; k++)
        put(
          `own/${REPEATS}/${role}${role === 'agent' ? '/my-agent' : ''}/openai-infqps-opt-125m-2026011${k}-120000.json`,
          pyJson(vllmServeCli({ seed: k * 10 + speed * 100, speed, numPrompts: 80 })),
        );
    // One --save-detailed file a role: `per-request`.
    for (const [role, speed] of [
      ['baseline', 1.05],
      ['human', 1.0],
      ['agent', 0.85],
    ] as const)
      put(`own/${DETAILED}/${role}/detailed.json`, pyJson(vllmServeCli({ seed: 3 + speed * 10, speed, numPrompts: 150, detailed: true })));
    // Different prompt counts, rates: incomparable, naming the field and both values.
    put(`own/${PROMPTS}/human/r.json`, pyJson(vllmServeCli({ numPrompts: 100, seed: 1 })));
    put(`own/${PROMPTS}/agent/r.json`, pyJson(vllmServeCli({ numPrompts: 300, seed: 2 })));
    put(`own/${RATES}/human/r.json`, pyJson(vllmServeCli({ requestRate: 10, seed: 1 })));
    put(`own/${RATES}/agent/r.json`, pyJson(vllmServeCli({ requestRate: 'inf', seed: 2 })));
    // Datasets come from the commands a manifest gives (the result files do not record them).
    put(`own/datasets/h.json`, pyJson(vllmServeCli({ seed: 1 })));
    put(`own/datasets/a.json`, pyJson(vllmServeCli({ seed: 2 })));
    put(
      'own/datasets/bench-triage.csv',
      `path,commit,role,agent,command\nh.json,${DATASETS},human,,vllm bench serve --model facebook/opt-125m --dataset-name sharegpt --num-prompts 100\na.json,${DATASETS},agent,x,vllm bench serve --model facebook/opt-125m --num-prompts 100\n`,
    );
    // The other tools.
    put(`own/f0f0f0f6/human/sglang.jsonl`, [1, 2].map(s => pyJson(sglangLine({ seed: s }))).join('\n') + '\n');
    put(`own/f0f0f0f6/agent/g/benchmarks.json`, pyJson(guidellmReport()));
    const ai = aiperfExport();
    put(`own/f0f0f0f6/baseline/artifacts/profile_export_aiperf.json`, JSON.stringify(ai.json, null, 2));
    put(`own/f0f0f0f6/baseline/artifacts/profile_export.jsonl`, ai.jsonl);
    put(`own/f1f1f1f7/human/throughput.json`, JSON.stringify(vllmThroughput(), null, 4));
    put(`own/f1f1f1f7/agent/latency.json`, JSON.stringify(vllmLatency(), null, 4));
    put('own/unsorted/openai-infqps-opt-125m-20260101-000000.json', pyJson(vllmServeCli()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('scan --json --runs: no file unknown, every run attributed with its commit, role and agent, units right; the unattributed file listed with its fix', () => {
    const r = runCli('scan', path.join(dir, 'own'), '--json', '--runs');
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.deepEqual(s.files.unknown, []);
    assert.deepEqual(s.files.corrupt, []);
    assert.deepEqual(
      s.files.unattributed.map((u: any) => u.path),
      ['unsorted/openai-infqps-opt-125m-20260101-000000.json'],
    );
    assert.match(s.files.unattributed[0].reason, /bench-triage\.csv/);
    // A folder without other known files says so plainly (no empty parentheses).
    const plain = runCli('scan', path.join(dir, 'own/f1f1f1f7'));
    assert.match(plain.stdout, /files: \d+ with runs, 0 other known files, 0 corrupt/, plain.stdout);
    // The text output says it too: the count, the file with its fix, and how each run got its identity.
    const text = runCli('scan', path.join(dir, 'own'), '--runs').stdout;
    assert.match(text, /, 1 not attributed, /, text);
    assert.match(text, /not attributed {2}unsorted\/openai-infqps-opt-125m-20260101-000000\.json \(vllm-serve, 1 run\): .*bench-triage\.csv/, text);
    const runLines = text.split('\n').filter(l => l.startsWith('  run '));
    assert.equal(runLines.length, s.runs);
    for (const l of runLines)
      if (!l.includes(' datasets/')) assert.match(l, /\(by (path [0-9a-f]{8}\/(baseline|human|agent)|manifest [^ ;)]*bench-triage\.csv:\d+)/, l);
    assert.equal(s.runs, 15 + 3 + 4 + 2 + 2 + 3 + 1 + 2);
    assert.deepEqual(s.runsBySchema, { 'vllm-serve': 24, 'sglang-serve': 2, guidellm: 3, aiperf: 1, 'vllm-throughput': 1, 'vllm-latency': 1 });
    for (const run of s.runList) {
      assert.ok(['path', 'manifest'].includes(run.identity.by), JSON.stringify(run));
      const dirCommit = /\/?([0-9a-f]{8})\//.exec(run.file)?.[1] ?? DATASETS;
      assert.equal(run.commit, dirCommit, run.file);
      for (const [k, u] of Object.entries(run.units))
        assert.equal(u, /_ms$/.test(k) ? 'ms' : /tok_s$/.test(k) ? 'tok/s' : /req_s$/.test(k) ? 'req/s' : u, `${run.file}: ${k}`);
    }
    const agentRun = s.runList.find((x: any) => x.file.includes('/agent/my-agent/'));
    assert.equal(agentRun.agent, 'my-agent');
    assert.equal(s.runList.find((x: any) => x.file === 'datasets/a.json').agent, 'x');
  });

  it('classify --json: repeats and per-request verdicts; different prompt counts, rates and datasets incomparable with both values', () => {
    const r = runCli('classify', path.join(dir, 'own'), '--json');
    assert.equal(r.status, 0, r.stderr);
    const list = JSON.parse(r.stdout) as any[];
    const at = (c: string) => list.find(e => e.commit === c)!;
    const rep = at(REPEATS);
    assert.equal(rep.comparison.basis, 'repeats', JSON.stringify(rep.comparability));
    assert.equal(rep.roles.human.attempts ?? 5, 5);
    assert.equal(rep.verdict, 'win', JSON.stringify(rep.comparison));
    // One run a role: the latency headline metrics are judged on the per-request samples (an
    // aggregate throughput has none: its one figure stays a single-run verdict).
    const det = at(DETAILED);
    for (const key of ['ttft_mean_ms', 'tpot_mean_ms']) {
      const m = det.comparison.metrics.find((x: any) => x.key === key);
      assert.equal(m.basis, 'per-request', key);
      assert.equal(m.headline, true, key);
      assert.equal(m.verdict, 'win', key);
      assert.ok(m.ci[0] > 2 && m.p < 0.05, JSON.stringify(m));
    }
    assert.ok(
      at(PROMPTS).comparability.reasons.includes('workloads differ on requests: human 100 (num_prompts), agent 300 (num_prompts)'),
      at(PROMPTS).comparability.reasons.join(' | '),
    );
    assert.equal(at(PROMPTS).verdict, 'n/a');
    assert.ok(at(RATES).comparability.reasons.includes('workloads differ on request rate (req/s): human 10 (request_rate), agent inf (request_rate)'));
    assert.ok(
      at(DATASETS).comparability.reasons.some((x: string) =>
        x.startsWith('workloads differ on dataset: human sharegpt (--dataset-name), agent random (default of vllm bench serve)'),
      ),
      at(DATASETS).comparability.reasons.join(' | '),
    );
  });

  it("pooled attempts with different --metadata labels: classify --json and the Markdown report note them (the demo's c0ffee01)", () => {
    const own = path.resolve(__dirname, '../../demo/workspace/own-campaign');
    const json = JSON.parse(runCli('classify', own, '--json').stdout) as any[];
    const noted = json.filter(e => (e.comparability?.notes ?? []).length);
    assert.deepEqual(
      noted.map(e => [e.commit, e.comparability.notes]),
      [
        [
          'c0ffee01',
          ["baseline's 5 pooled attempts carry different labels: gpu = H100-SXM5-80GB (4), H100-PCIe-80GB (1) (are they repeats of one configuration?)"],
        ],
      ],
      'only c0ffee01, whose one baseline attempt ran on another H100, and its verdict still given',
    );
    assert.ok(noted[0].comparison, 'a note does not withhold the verdict');
    const md = runCli('report', own, '--format', 'md');
    assert.equal(md.status, 0, md.stderr);
    const notes = md.stdout.slice(md.stdout.indexOf('Notes on these comparisons'));
    assert.ok(md.stdout.includes('Notes on these comparisons') && /c0ffee01 \| my-agent \| .*H100-PCIe-80GB \\\(1\\\)/.test(notes), notes.slice(0, 600));
  });

  it('classify (text): a p-value below 0.001 reads "p < 0.001", never "p 0.000" (the demo\'s own campaign)', () => {
    const own = path.resolve(__dirname, '../../demo/workspace/own-campaign');
    const json = JSON.parse(runCli('classify', own, '--json').stdout) as any[];
    const tiny = json.filter(e => typeof e.comparison?.p === 'number' && e.comparison.p < 0.001);
    assert.ok(tiny.length, 'the demo has a verdict with p below 0.001 (c0ffee05, per-request)');
    const r = runCli('classify', own);
    assert.equal(r.status, 0, r.stderr);
    for (const e of tiny) {
      const line = r.stdout.split('\n').find(l => l.includes(e.commit.slice(0, 8)))!;
      assert.match(line, /, p < 0\.001\)/, line);
    }
    assert.doesNotMatch(r.stdout, /p 0\.000\b/);
  });

  it("classify (text): a single-run headline names the headline metrics judged on firmer ground beside it (the demo's --save-detailed commit)", () => {
    const own = path.resolve(__dirname, '../../demo/workspace/own-campaign');
    const json = JSON.parse(runCli('classify', own, '--json').stdout) as any[];
    const single = json.filter(e => e.pair.ok && e.comparison?.basis === 'single');
    const firmer = (e: any) => e.comparison.metrics.filter((m: any) => m.headline && m.key !== e.comparison.metric && m.basis !== 'single');
    assert.ok(
      single.some(e => firmer(e).some((m: any) => m.basis === 'per-request')),
      'the demo has a single-run headline beside per-request ones (c0ffee02)',
    );
    const text = runCli('classify', own).stdout.split('\n');
    for (const e of single) {
      const line = text.find(l => l.includes(e.commit.slice(0, 8)))!;
      assert.match(line, /\(single run\)/, line);
      // Each by its verdict, its difference and its basis (the JSON names metrics by key, the text by label).
      for (const m of firmer(e)) {
        const said = `${m.verdict} ${m.agentVsHuman > 0 ? '+' : ''}${m.agentVsHuman.toFixed(1)} % (${m.basis}, p `;
        assert.ok(line.split('(single run);')[1]?.includes(said), `${m.key}: "${said}" in ${line}`);
      }
      if (!firmer(e).length) assert.doesNotMatch(line, /\(single run\);/, line);
    }
  });
});
