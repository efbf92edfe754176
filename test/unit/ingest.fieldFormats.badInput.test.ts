import * as assert from 'node:assert/strict';
import { scan, summarize } from '../../src/core/ingest';
import { aiperfExport, guidellmReport, pyJson, sglangLine, vllmLatency, vllmServeCli, vllmThroughput } from '../../scripts/field-formats.mjs';
import { memorySource } from './helpers';

/** Each format, as its tool writes it, under a path that attributes it. */
const FILES: Record<string, () => string> = {
  'c1c1c1c1/human/vllm-serve.json': () => pyJson(vllmServeCli({ detailed: true, numPrompts: 20 })),
  'c1c1c1c1/human/appended.json': () => [1, 2].map(s => pyJson(vllmServeCli({ seed: s, numPrompts: 20 }))).join('\n'),
  'c1c1c1c1/human/sglang.jsonl': () => [1, 2].map(s => pyJson(sglangLine({ seed: s, numPrompts: 20, details: true }))).join('\n') + '\n',
  'c1c1c1c1/human/benchmarks.json': () => pyJson(guidellmReport({ requests: 10 })),
  'c1c1c1c1/human/profile_export_aiperf.json': () => JSON.stringify(aiperfExport({ requestCount: 10 }).json, null, 2),
  'c1c1c1c1/human/throughput.json': () => JSON.stringify(vllmThroughput(), null, 4),
  'c1c1c1c1/human/latency.json': () => JSON.stringify(vllmLatency(), null, 4),
};
const scanOne = async (name: string, text: string, opts = {}) => {
  const r = await scan(memorySource({ [name]: text }), opts);
  return { r, s: summarize(r, true) };
};

describe('bad input in the field’s formats: a finding naming the file and field, never a crash', function () {
  this.timeout(120000);

  it('every format truncated: corrupt with its position (a JSON document), or the broken line a finding (JSON lines)', async () => {
    for (const [name, make] of Object.entries(FILES)) {
      const text = make();
      const { r, s } = await scanOne(name, text.slice(0, Math.floor(text.length * 0.6)));
      const f = r.files[0];
      if (name.endsWith('.jsonl') || name.includes('appended')) {
        // The first line is whole: one attempt is read, the cut line is a finding.
        assert.equal(r.runs.length, 1, `${name}: ${JSON.stringify(f)}`);
        assert.ok(
          s.dataProblems.some(p => p.file === name && /^line 2$/.test(p.field) && /not JSON/.test(p.message)),
          `${name}: ${JSON.stringify(s.dataProblems)}`,
        );
      } else {
        assert.equal(f.kind, 'corrupt', name);
        assert.ok(f.kind === 'corrupt' && f.line !== null && /end of input|invalid|unexpected/.test(f.error), `${name}: ${JSON.stringify(f)}`);
      }
    }
  });

  it('wrong types: the field is named, the rest of the file still read', async () => {
    const doc = vllmServeCli({ detailed: true, numPrompts: 20 }) as Record<string, unknown>;
    const bad = await scanOne('c1c1c1c1/human/x.json', JSON.stringify({ ...doc, completed: 'many' }));
    assert.equal(bad.r.files[0].kind, 'unknown');
    assert.match((bad.r.files[0] as { reason: string }).reason, /looks like vllm-serve, but field `completed`/);
    const typed = await scanOne('c1c1c1c1/human/x.json', JSON.stringify({ ...doc, mean_ttft_ms: 'fast', ttfts: { a: 1 }, p99_tpot_ms: -3, request_rate: [1] }));
    const problems = typed.s.dataProblems.map(p => `${p.field}: ${p.message}`);
    assert.ok(
      problems.some(p => /^mean_ttft_ms: "fast" is not a number/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some(p => /^ttfts: is not an array/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some(p => /^p99_tpot_ms: negative value -3/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some(p => /^request_rate: an array of 1 is not a value/.test(p)),
      problems.join('\n'),
    );
    assert.ok(typed.r.runs[0].metrics.request_throughput_req_s > 0, 'the other values are read');
    const g = guidellmReport({ requests: 10 }) as any;
    g.benchmarks[0].metrics.time_to_first_token_ms = 5;
    g.benchmarks[1] = 'nope';
    const gl = await scanOne('c1c1c1c1/human/benchmarks.json', JSON.stringify(g));
    const gp = gl.s.dataProblems.map(p => `${p.field}: ${p.message}`);
    assert.ok(gp.includes('benchmarks.0.metrics.time_to_first_token_ms: is not a distribution summary: not read'), gp.join('\n'));
    assert.ok(gp.includes('benchmarks.1: is not a benchmark object: not read'), gp.join('\n'));
    assert.equal(gl.r.runs.length, 2);
    const a = aiperfExport({ requestCount: 10 }).json as any;
    a.request_latency = { unit: 'parsecs', avg: 3 };
    a.time_to_first_token = 'slow';
    const ai = await scanOne('c1c1c1c1/human/profile_export_aiperf.json', JSON.stringify(a));
    const ap = ai.s.dataProblems.map(p => `${p.field}: ${p.message}`);
    assert.ok(ap.includes('request_latency.unit: unit "parsecs" is not a time unit: not read'), ap.join('\n'));
    assert.ok(ap.includes('time_to_first_token: is not a metric result ({unit, avg, …}): not read'), ap.join('\n'));
  });

  it('a million per-request values are thinned to 100 000, said on the field', async () => {
    const doc = vllmServeCli({ numPrompts: 10 }) as Record<string, unknown>;
    const n = 1_000_000;
    const big = {
      ...doc,
      latencies: Array.from({ length: n }, (_, i) => 0.5 + (i % 97) / 1000),
      ttfts: Array.from({ length: n }, () => 0.05),
      output_lens: Array.from({ length: n }, () => 8),
      itls: [],
    };
    const { r, s } = await scanOne('c1c1c1c1/human/big.json', JSON.stringify(big));
    assert.equal(r.runs[0].samples!.e2el_mean_ms.length, 100_000);
    assert.ok(
      s.dataProblems.some(p => p.field === 'output_lens' && /1000000 per-request values, above the 100000 kept: every 10th is used/.test(p.message)),
      JSON.stringify(s.dataProblems),
    );
    const l = vllmLatency() as Record<string, unknown>;
    const lat = await scanOne('c1c1c1c1/human/latency.json', JSON.stringify({ ...l, latencies: Array.from({ length: n }, () => 1.2) }));
    assert.equal(lat.r.runs[0].samples!.latency_avg_ms.length, 100_000);
    assert.equal(lat.r.runs[0].workload!.num_iters.value, String(n));
  });

  it('a 100 MB line: the file is over the result-file limit and says so; under a raised limit the line is one attempt', async () => {
    const doc = vllmServeCli({ numPrompts: 10 }) as Record<string, unknown>;
    const line = JSON.stringify({ ...doc, label: 'x'.repeat(100 * 1024 * 1024) });
    const text = `${JSON.stringify(doc)}\n${line}\n`;
    const over = await scanOne('c1c1c1c1/human/appended.jsonl', text);
    assert.equal(over.r.files[0].kind, 'unknown');
    assert.match((over.r.files[0] as { reason: string }).reason, /MiB, above the 64 MiB limit/);
    const raised = await scanOne('c1c1c1c1/human/appended.jsonl', text, { maxFileBytes: 256 * 1024 * 1024 });
    assert.equal(raised.r.runs.length, 2);
    assert.equal(raised.r.runs[1].labels?.label?.length, 200, 'a label is kept short');
  });

  it('a manifest that is not CSV, or huge, is a finding; its rows are never a crash', async () => {
    const bad = await scanOne('m/bench-triage.csv', 'path,commit,role\n"unterminated,abcdef1,human\n');
    assert.ok(
      bad.s.dataProblems.some(p => p.file === 'm/bench-triage.csv' && /not CSV/.test(p.message)),
      JSON.stringify(bad.s.dataProblems),
    );
    const rows = ['path,commit,role', ...Array.from({ length: 100_050 }, (_, i) => `f${i}.json,abcdef1,human`)].join('\n');
    const big = await scanOne('m/bench-triage.csv', rows);
    assert.ok(
      big.s.dataProblems.some(p => /more than 100000 rows/.test(p.message)),
      JSON.stringify(big.s.dataProblems.slice(0, 3)),
    );
  });
});
