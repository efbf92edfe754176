import * as assert from 'node:assert/strict';
import { scan, summarize, type ScanResult } from '../../src/core/ingest';
import { comparability, runWorkload, triage } from '../../src/core/compare';
import { commandWorkload } from '../../src/core/perfcmd';
import type { Run } from '../../src/core/model';
import {
  aiperfExport,
  guidellmReport,
  pyJson,
  sglangLine,
  vllmLatency,
  vllmServeCli,
  vllmServeScript2024,
  vllmServeScript2025,
  vllmThroughput,
} from '../../scripts/field-formats.mjs';
import { memorySource } from './helpers';
import { spawnSync } from 'node:child_process';

const C = '1a2b3c4d5e6f';
// As the tools write their files: Python's json.dump with its defaults (scripts/field-formats.mjs).
const j = (v: unknown) => pyJson(v);
const scanOf = (files: Record<string, string>) => scan(memorySource(files));
const only = (r: ScanResult) => {
  assert.equal(r.runs.length, 1, JSON.stringify(r.files));
  return r.runs[0];
};
/** Findings that say a key was not understood: there must be none on a file in the tool's own format. */
const unread = (r: Run) => r.problems.filter(p => /not known to this reader|not read/.test(p.message));

describe('result files of the field’s tools (standalone detectors)', () => {
  it('the files are written byte for byte as Python’s json.dumps writes them (separators, escapes, floats, Infinity)', () => {
    // Python reads each text and writes it again with json.dumps' defaults: the same bytes back.
    const texts = [
      pyJson(vllmServeCli({ detailed: true, numPrompts: 20 })),
      pyJson(sglangLine({ seed: 3, details: true, failed: 2, error: 'Internal Server Error: ünïcode ✓ 😀' })),
      pyJson(guidellmReport({ requests: 5 })),
      pyJson({ tiny: 0.00005, huge: 1.5e20, neg: -2.5e-7, inf: -Infinity, nan: NaN, s: 'é\u2028"\\\u007f' }),
    ];
    const py = 'import json,sys\nfor line in sys.stdin.read().split(chr(10)):\n    print(json.dumps(json.loads(line)))';
    const r = spawnSync('python3', ['-c', py], { input: texts.join('\n'), encoding: 'utf8' });
    assert.equal(r.status, 0, `python3 (a system package of the test command) ran: ${r.stderr}`);
    assert.deepEqual(r.stdout.split('\n').slice(0, -1), texts);
    assert.match(texts[3], /^\{"tiny": 5e-05, "huge": 1\.5e\+20, "neg": -2\.5e-07, "inf": -Infinity, "nan": NaN, "s": "\\u00e9\\u2028/);
  });

  describe('vLLM serving results', () => {
    it('vllm bench serve --save-result (vllm/benchmarks/serve.py @ 009e6d4a): metrics with units, settings as the workload, every key accounted for', async () => {
      const doc = vllmServeCli({ numPrompts: 200, maxConcurrency: 16, percentiles: [99, 99.9], metrics: ['ttft', 'tpot', 'itl', 'e2el'] });
      const r = only(await scanOf({ [`${C}/human/openai-infqps-concurrency16-opt-125m-20260110-120000.json`]: j(doc) }));
      assert.equal(r.provenance.schema, 'vllm-serve');
      assert.equal(r.source, 'vllm bench serve');
      assert.equal(r.status, 'success');
      assert.equal(r.benchmarkMode, 'serving');
      assert.equal(r.model, 'facebook/opt-125m');
      assert.equal(r.timestamp, '2026-01-10T12:00:00');
      assert.deepEqual(unread(r), []);
      assert.equal(r.metrics.request_throughput_req_s, doc.request_throughput);
      assert.equal(r.metrics.output_throughput_tok_s, doc.output_throughput);
      assert.equal(r.metrics.total_throughput_tok_s, doc.total_token_throughput);
      assert.equal(r.metrics.peak_output_throughput_tok_s, doc.max_output_tokens_per_s);
      assert.equal(r.metrics['ttft_p99.9_ms'], doc['p99.9_ttft_ms'], '--metric-percentiles 99.9 is a metric of its own');
      assert.equal(r.metrics.e2el_mean_ms, doc.mean_e2el_ms);
      assert.equal(r.metrics.itl_p99_ms, doc.p99_itl_ms);
      assert.equal(r.counts.successful_requests, 200);
      assert.equal(r.counts.failed_requests, 0);
      assert.equal(r.counts.peak_concurrent_requests, 16);
      assert.ok(!('rtfx' in r.metrics), 'rtfx 0 is "not audio", not a metric of 0');
      const w = Object.fromEntries(Object.entries(r.workload!).map(([k, v]) => [k, v.value]));
      assert.deepEqual(w, {
        num_prompts: '200',
        request_rate: 'inf',
        endpoint: '/v1/completions',
        max_concurrency: '16',
        input_tokens: String(doc.total_input_tokens),
      });
      // latencies stay in a default file (not only with --save-detailed): E2E samples per request.
      assert.equal(r.samples?.e2el_mean_ms?.length, 200);
      assert.equal(r.failedRequests, undefined);
    });

    it('--save-detailed: per-request TTFT, TPOT and E2E samples that agree with the file’s own means', async () => {
      const doc = vllmServeCli({ numPrompts: 120, detailed: true, seed: 9 });
      const r = only(await scanOf({ [`${C}/agent/a1/detailed.json`]: j(doc) }));
      const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      assert.equal(r.samples!.ttft_mean_ms.length, 120);
      assert.ok(Math.abs(m(r.samples!.ttft_mean_ms) - doc.mean_ttft_ms) < 1e-6);
      assert.ok(Math.abs(m(r.samples!.tpot_mean_ms) - doc.mean_tpot_ms) < 1e-6);
      assert.equal(r.agent, 'a1');
    });

    it('failed requests are a finding with the count and first error, and the run is not compared unless allowed', async () => {
      const files = {
        [`${C}/human/h.json`]: j(vllmServeCli({ numPrompts: 200, failed: 50, detailed: true, error: 'ServerDisconnectedError: Server disconnected' })),
        [`${C}/agent/x/a.json`]: j(vllmServeCli({ numPrompts: 200, seed: 4 })),
      };
      const res = await scanOf(files);
      const h = res.runs.find(r => r.role === 'human')!;
      assert.deepEqual(h.failedRequests, { failed: 50, total: 200, firstError: 'ServerDisconnectedError: Server disconnected', field: 'failed' });
      assert.ok(h.problems.some(p => p.field === 'failed' && /50 of 200 requests failed .*first error: ServerDisconnectedError/.test(p.message)));
      const [e] = triage(res.runs, new Map());
      assert.equal(e.verdict, 'n/a');
      assert.ok(
        e.comparability.reasons.some(x =>
          /^human: 50 of 200 requests failed \(failed\), first error: ServerDisconnectedError.*--allow-failed-requests/.test(x),
        ),
        e.comparability.reasons.join(' | '),
      );
      const [allowed] = triage(res.runs, new Map(), { allowFailedRequests: true });
      assert.ok(allowed.comparison, 'compared when the user allows it');
      assert.ok(!allowed.comparability.reasons.some(x => /requests failed/.test(x)));
    });

    it('every request failed: a failed run whose error the classifier can read', async () => {
      const r = only(await scanOf({ [`${C}/baseline/b.json`]: j(vllmServeCli({ numPrompts: 30, failed: 30, detailed: true, error: 'Not Found' })) }));
      assert.equal(r.status, 'failed');
      assert.match(r.error!, /^All 30 requests failed \(failed\); first error: Not Found$/);
      // vllm bench serve writes its figures as 0.0 then: they measured nothing, and are not kept as figures.
      const doc = JSON.parse(j(vllmServeCli({ numPrompts: 30, failed: 30, error: 'Not Found' })));
      assert.equal(doc.completed, 0);
      assert.deepEqual(r.metrics, {});
      assert.equal(r.counts.failed_requests, 30);
    });

    it('--append-result (one compact object per line, no trailing newline): one attempt per object, each with its own id', async () => {
      const text = [1, 2, 3].map(s => j(vllmServeCli({ seed: s, numPrompts: 50 }))).join('\n');
      const res = await scanOf({ [`${C}/human/appended.json`]: text });
      assert.equal(res.runs.length, 3);
      assert.deepEqual(
        res.runs.map(r => r.provenance.pointer),
        ['line 1', 'line 2', 'line 3'],
      );
      assert.equal(new Set(res.runs.map(r => r.id)).size, 3);
      assert.equal(res.files[0].kind, 'run');
    });

    it('benchmark_serving.py 2024 (benchmarks/benchmark_serving.py @ 8668d7c0): the swapped E2E mean/median read right, its keys accounted for', async () => {
      const doc = vllmServeScript2024({ metrics: ['ttft', 'tpot', 'itl', 'e2el'] });
      const r = only(await scanOf({ [`${C}/human/vllm-infqps-opt-125m-20240610-120000.json`]: j(doc) }));
      assert.equal(r.source, 'benchmark_serving.py');
      assert.equal(r.metrics.e2el_mean_ms, (doc as any).median_e2el_ms, 'that version wrote the mean under median_e2el_ms');
      assert.equal(r.metrics.e2el_median_ms, (doc as any).mean_e2el_ms);
      assert.ok(r.problems.some(p => p.field === 'mean_e2el_ms' && /read the other way round/.test(p.message)));
      assert.deepEqual(unread(r), []);
      assert.ok(r.samples?.ttft_mean_ms, 'the 2024 script always kept the per-request arrays');
      // Mid-2024 versions also wrote input tokens per second (seen in users' files of September 2024).
      const withInput = only(await scanOf({ [`${C}/human/i.json`]: j({ ...(doc as object), input_throughput: 255.1 }) }));
      assert.equal(withInput.metrics.input_throughput_tok_s, 255.1);
      assert.deepEqual(unread(withInput), []);
    });

    it('benchmark_serving.py early 2025 (@ 0049e29c): "request_goodput:" with its colon is a known key', async () => {
      const r = only(await scanOf({ [`${C}/human/s.json`]: j(vllmServeScript2025({ burstiness: 0.5, requestRate: 10 })) }));
      assert.deepEqual(unread(r), []);
      assert.equal(r.workload!.burstiness.value, '0.5');
      assert.equal(r.workload!.request_rate.value, '10');
    });

    it('a copy trimmed to its latency figures (no completed, duration or throughput) is read, saying the request counts are not known', async () => {
      const full = JSON.parse(j(vllmServeScript2025({ requestRate: 1 }))) as Record<string, unknown>;
      const keep = /^(date|backend|model_id|tokenizer_id|num_prompts|request_rate|burstiness|max_concurrency|(mean|median|std|p99)_(ttft|tpot|itl)_ms)$/;
      const trimmed = Object.fromEntries(Object.entries(full).filter(([k]) => keep.test(k)));
      assert.equal(trimmed.completed, undefined);
      const r = only(await scanOf({ [`${C}/human/serving_llama8B_tp1_sharegpt_qps_1.json`]: JSON.stringify(trimmed) }));
      assert.equal(r.provenance.schema, 'vllm-serve');
      assert.equal(r.status, 'success');
      assert.equal(r.failedRequests, undefined, 'not taken for every request failed');
      assert.equal(r.metrics.ttft_mean_ms, full.mean_ttft_ms);
      assert.ok(
        r.problems.some(p => p.field === 'completed' && /not known/.test(p.message)),
        JSON.stringify(r.problems),
      );
    });

    it('a vllm bench sweep run names its repeat: a label, not an unknown key', async () => {
      const r = only(await scanOf({ [`${C}/human/run=0.json`]: j({ ...JSON.parse(j(vllmServeCli({ numPrompts: 8 }))), run_number: 0 }) }));
      assert.equal(r.labels?.run_number, '0');
      assert.deepEqual(unread(r), []);
    });

    it('vllm bench throughput / latency --output-json (throughput.py @ 1a91bc2d, latency.py @ 00cae075)', async () => {
      const res = await scanOf({
        [`${C}/human/t.json`]: JSON.stringify(vllmThroughput(), null, 4),
        [`${C}/agent/l.json`]: JSON.stringify(vllmLatency({ iters: 20 }), null, 4),
      });
      const t = res.runs.find(r => r.provenance.schema === 'vllm-throughput')!;
      const l = res.runs.find(r => r.provenance.schema === 'vllm-latency')!;
      assert.equal(t.benchmarkMode, 'throughput');
      assert.equal(t.metrics.request_throughput_req_s, 20);
      assert.equal(t.metrics.total_throughput_tok_s, (1000 * 1152) / 50, 'tokens_per_second counts prompt and output tokens');
      assert.deepEqual(unread(t), []);
      assert.equal(l.benchmarkMode, 'latency');
      const lat = vllmLatency({ iters: 20 });
      assert.ok(Math.abs(l.metrics.latency_avg_ms - lat.avg_latency * 1000) < 1e-9, 'seconds → ms');
      assert.ok(Math.abs(l.metrics.latency_p90_ms - lat.percentiles['90'] * 1000) < 1e-9);
      assert.ok('latency_p25_ms' in l.metrics);
      assert.equal(l.samples!.latency_avg_ms.length, 20);
      assert.equal(l.workload!.num_iters.value, '20');
      assert.deepEqual(unread(l), []);
    });
  });

  describe('SGLang bench_serving (python/sglang/bench_serving.py @ 0229689b)', () => {
    it('JSONL with Python’s Infinity, one run per line, lengths by SGLang’s range meaning, details as samples and failures', async () => {
      const lines = [sglangLine({ seed: 1 }), sglangLine({ seed: 2, details: true, failed: 4, error: 'Internal Server Error: CUDA out of memory' })].map(
        pyJson,
      );
      assert.match(lines[0], /"request_rate": Infinity, /);
      const res = await scanOf({ [`${C}/agent/claude/sglang_1124_100_1024_128.jsonl`]: lines.join('\n') + '\n' });
      assert.equal(res.runs.length, 2);
      const [a, b] = res.runs;
      assert.equal(a.provenance.schema, 'sglang-serve');
      assert.equal(a.project, 'sglang');
      assert.equal(a.workload!.request_rate.value, 'inf');
      assert.equal(a.workload!.dataset.value, 'random');
      assert.equal(a.workload!.input_len.value, '1024', 'range ratio 1.0 draws [L·1, L]: fixed');
      assert.equal(a.metrics.e2el_p90_ms, sglangLine({ seed: 1 }).p90_e2e_latency_ms);
      assert.equal(a.metrics.itl_p95_ms, sglangLine({ seed: 1 }).p95_itl_ms);
      assert.deepEqual(unread(a), []);
      assert.ok(!a.problems.some(p => /Infinity/.test(p.message)), 'Infinity is valid there: no finding');
      assert.deepEqual(b.failedRequests, { failed: 4, total: 100, firstError: 'Internal Server Error: CUDA out of memory', field: 'errors' });
      assert.equal(b.samples!.ttft_mean_ms.length, 96);
      const r0 = await scanOf({ [`${C}/agent/claude/x.jsonl`]: pyJson(sglangLine({ rangeRatio: 0 })) });
      assert.equal(r0.runs[0].workload!.input_len.value, '1–1024', 'SGLang’s default ratio 0 draws from 1 to L');
    });

    it('the 2024 client (bench_serving.py of July 2024: no dataset_name) is read, saying the dataset is not known; a server_info names the model', async () => {
      // The result dict of that client, key for key: backend, request_rate, totals, e2e/TTFT/ITL, output throughput, random_* lengths, duration, completed.
      const early = {
        backend: 'sglang',
        request_rate: Infinity,
        total_input_tokens: 342460,
        total_output_tokens: 218257,
        total_output_tokens_retokenized: 136382,
        mean_e2e_latency_ms: 2531.6,
        median_e2e_latency_ms: 1017.1,
        median_ttft_ms: 978.3,
        median_itl_ms: 0.0,
        output_throughput: 818.5,
        random_input_len: 1024,
        random_output_len: 128,
        random_range_ratio: 0.0,
        duration: 266.7,
        completed: 996,
      };
      const res = await scanOf({ [`${C}/baseline/sglang_1107_1000_1024_128.jsonl`]: pyJson(early) + '\n' });
      const r = only(res);
      assert.equal(r.provenance.schema, 'sglang-serve');
      assert.equal(r.metrics.ttft_median_ms, 978.3);
      assert.equal(r.metrics.output_throughput_tok_s, 818.5);
      assert.equal(r.workload!.dataset, undefined, 'no dataset is guessed');
      assert.equal(r.workload!.input_len, undefined, 'random_* are written whatever the dataset: not read as lengths without it');
      assert.ok(r.problems.some(p => p.field === 'dataset_name' && /not known/.test(p.message)));
      assert.deepEqual(unread(r), []);
      const modern = { ...sglangLine({ seed: 3 }), server_info: { model_path: 'meta-llama/Llama-3.1-8B-Instruct', tp_size: 1 } };
      assert.equal(only(await scanOf({ [`${C}/human/s.jsonl`]: pyJson(modern) + '\n' })).model, 'meta-llama/Llama-3.1-8B-Instruct');
    });
  });

  describe('GuideLLM benchmarks.json (src/guidellm/benchmark/schemas/report.py @ ee7a7745, v2)', () => {
    it('GuideLLM 0.8 multi-turn timings are ignored by name, not unknown', async () => {
      const rep = guidellmReport({ rates: [2] }) as any;
      for (const b of rep.benchmarks) {
        const dist = b.metrics.request_latency;
        b.metrics.time_to_last_round_trip_ms = dist;
        b.metrics.avg_round_trip_time_ms = dist;
      }
      const r = only(await scanOf({ [`${C}/human/benchmarks.json`]: j(rep) }));
      assert.deepEqual(unread(r), []);
    });

    it('a sweep: one run per rate, each its own workload; ITL read as vLLM’s TPOT; errored requests a finding', async () => {
      const rep = guidellmReport({ rates: [2, 4, 8], errored: 3 });
      const res = await scanOf({ [`${C}/human/benchmarks.json`]: j(rep) });
      assert.equal(res.runs.length, 3);
      assert.deepEqual(
        res.runs.map(r => r.workload!.request_rate.value),
        ['2', '4', '8'],
      );
      const r = res.runs[1];
      assert.equal(r.provenance.pointer, 'benchmarks.1');
      assert.equal(r.model, 'facebook/opt-125m');
      assert.equal(r.workload!.burstiness.value, 'inf', 'constant rate: equal intervals');
      assert.equal(r.workload!.dataset.value, 'synthetic');
      assert.equal(r.workload!.input_len.value, '256');
      const succ = rep.benchmarks[1].metrics;
      assert.equal(r.metrics.tpot_mean_ms, succ.inter_token_latency_ms.successful.mean);
      assert.equal(r.metrics.tpot_incl_mean_ms, succ.time_per_output_token_ms.successful.mean);
      assert.equal(r.metrics.e2el_mean_ms, succ.request_latency.successful.mean * 1000, 'request_latency is in seconds');
      assert.equal(r.metrics['ttft_p99.9_ms'], succ.time_to_first_token_ms.successful.percentiles.p999);
      assert.equal(r.failedRequests?.failed, 3);
      assert.match(r.failedRequests!.firstError!, /503/);
      assert.equal(r.samples!.ttft_mean_ms.length, 37);
      assert.deepEqual(unread(r), []);
      assert.equal(new Set(res.runs.map(x => x.id)).size, 3);
    });
  });

  describe('AIPerf profile_export_aiperf.json (aiperf/exporters/json_exporter.py @ db4f6397; @ c2776b11 for v0.1.1)', () => {
    it('metric tags in their display units, input_config as the workload, per-request samples from profile_export.jsonl', async () => {
      const { json, jsonl } = aiperfExport({ errors: 2 });
      const res = await scanOf({
        [`${C}/agent/aiperf/artifacts/run/profile_export_aiperf.json`]: JSON.stringify(json, null, 2),
        [`${C}/agent/aiperf/artifacts/run/profile_export.jsonl`]: jsonl,
      });
      const r = only(res);
      assert.equal(r.provenance.schema, 'aiperf');
      assert.equal(r.metrics.tpot_mean_ms, (json as any).inter_token_latency.avg, 'AIPerf’s ITL is vLLM’s TPOT');
      assert.equal(r.metrics.e2el_p90_ms, (json as any).request_latency.p90);
      assert.equal(r.counts.benchmark_duration_s, (json as any).benchmark_duration.avg, 'benchmark_duration is in sec');
      assert.equal(r.workload!.max_concurrency.value, '8');
      assert.equal(r.workload!.num_prompts.value, '50');
      assert.equal(r.workload!.input_len.value, '550');
      assert.equal(r.failedRequests?.failed, 2);
      assert.equal(r.samples!.ttft_mean_ms.length, 48, 'the per-request export beside it gives the samples');
      assert.deepEqual(unread(r), []);
      assert.equal(res.files.find(f => f.path.endsWith('.jsonl'))!.kind, 'nonRun');
      const old = only(await scanOf({ [`${C}/agent/aiperf/old/profile_export_aiperf.json`]: JSON.stringify(aiperfExport({ old: true }).json) }));
      assert.equal(old.metrics.ttft_mean_ms, (aiperfExport({ old: true }).json as any).records.ttft.avg, 'v0.1.1 named TTFT ttft, under records');
      assert.deepEqual(unread(old), []);
    });

    it('AIPerf 0.10 (schema_version 1.3): the load from the measured phase, the dataset and model as written, its new keys read or ignored by name', async () => {
      const { json } = aiperfExport({ v010: true, concurrency: 16, requestCount: 96 });
      const r = only(await scanOf({ [`${C}/human/aiperf/profile_export_aiperf.json`]: JSON.stringify(json, null, 2) }));
      assert.equal(r.provenance.schema, 'aiperf');
      const w = Object.fromEntries(Object.entries(r.workload!).map(([k, v]) => [k, `${v.value} (${v.from})`]));
      assert.equal(w.max_concurrency, '16 (input_config.phases.1.concurrency)', 'the profiling phase, not the warm-up');
      assert.equal(w.num_prompts, '96 (input_config.phases.1.requests)');
      assert.equal(w.dataset, 'sharegpt (input_config.datasets.0.dataset)');
      assert.equal(w.endpoint, 'chat (input_config.endpoint.type)');
      assert.equal(w.input_len, undefined, 'a public dataset has the lengths it has: no default length is made up');
      assert.equal(r.model, 'facebook/opt-125m');
      assert.equal(r.metrics.total_throughput_tok_s, (json as any).total_token_throughput.avg);
      assert.equal(r.labels?.aiperf_version, '0.10.0');
      assert.deepEqual(unread(r), []);
      // A phase this reader does not know is said, and its load left unread rather than guessed.
      const odd = structuredClone(json) as any;
      odd.input_config.phases[1] = { name: 'profiling', type: 'fixed_schedule', requests: 96 };
      const o = only(await scanOf({ [`${C}/human/aiperf/profile_export_aiperf.json`]: JSON.stringify(odd) }));
      assert.equal(o.workload!.max_concurrency, undefined);
      assert.ok(
        o.problems.some(p => p.field === 'input_config.phases.1.type' && /not known/.test(p.message)),
        JSON.stringify(o.problems),
      );
    });

    it('an older export that leaves a setting out: its AIPerf default, said to be one', async () => {
      const a = aiperfExport({ requestCount: 10 }).json as any;
      delete a.input_config.loadgen.request_count;
      delete a.input_config.input.prompt.input_tokens;
      const r = only(await scanOf({ [`${C}/human/aiperf/profile_export_aiperf.json`]: JSON.stringify(a) }));
      assert.equal(r.workload!.num_prompts.value, '10');
      assert.match(r.workload!.num_prompts.from, /^AIPerf's default \(input_config\.loadgen\.request_count not written\)$/);
      assert.match(r.workload!.input_len.from, /^AIPerf's default/);
      assert.equal(r.workload!.max_concurrency.from, 'input_config.loadgen.concurrency');
    });
  });

  describe('identity without a wrapper', () => {
    it('a bench-triage.csv manifest (globs, nearest folder first), else the path, else "not attributed" with both fixes', async () => {
      const doc = j(vllmServeCli());
      const res = await scanOf({
        'campaign/bench-triage.csv':
          'path,commit,role,agent\nruns/base-*.json,aaaaaaa1,baseline,\nruns/human-*.json,aaaaaaa1,human,\n"runs/agent, claude/*.json",aaaaaaa1,agent,claude\n',
        'campaign/runs/base-1.json': doc,
        'campaign/runs/human-1.json': doc,
        'campaign/runs/agent, claude/1.json': doc,
        'campaign/sub/bench-triage.csv': 'path,commit,role\n*.json,bbbbbbb2,human\n',
        'campaign/sub/x.json': doc,
        'by-path/ccccccc3/agent/my-agent/run1/r.json': doc,
        'by-path/ccccccc3/baseline/r.json': doc,
        'loose/r.json': doc,
      });
      const by = (file: string) => res.runs.find(r => r.provenance.file === file)!;
      assert.deepEqual(
        [by('campaign/runs/base-1.json'), by('campaign/runs/human-1.json'), by('campaign/runs/agent, claude/1.json')].map(r => [r.commit, r.role, r.agent]),
        [
          ['aaaaaaa1', 'baseline', null],
          ['aaaaaaa1', 'human', null],
          ['aaaaaaa1', 'agent', 'claude'],
        ],
      );
      assert.deepEqual(by('campaign/runs/human-1.json').identity, { by: 'manifest', source: 'campaign/bench-triage.csv', line: 3 });
      assert.equal(by('campaign/sub/x.json').commit, 'bbbbbbb2', 'the nearest manifest wins');
      assert.deepEqual(
        [by('by-path/ccccccc3/agent/my-agent/run1/r.json').role, by('by-path/ccccccc3/agent/my-agent/run1/r.json').agent],
        ['agent', 'my-agent'],
      );
      assert.deepEqual(by('by-path/ccccccc3/baseline/r.json').identity, { by: 'path', source: 'ccccccc3/baseline' });
      const s = summarize(res, true);
      assert.equal(s.files.unknown.length, 0);
      assert.deepEqual(
        s.files.unattributed.map(u => u.path),
        ['loose/r.json'],
      );
      assert.match(s.files.unattributed[0].reason, /bench-triage\.csv.*<commit>\/<role>\//);
      assert.equal(s.runList!.find(r => r.file === 'campaign/sub/x.json')!.identity.by, 'manifest');
    });

    it('bad manifest rows are findings naming the line and column, and attribute nothing', async () => {
      const res = await scanOf({
        'm/bench-triage.csv': 'path,commit,role\na.json,nothex!,human\nb.json,abcdef1,boss\n/etc/x.json,abcdef1,human\n',
        'm/a.json': j(vllmServeCli()),
      });
      assert.equal(res.runs.length, 0);
      const s = summarize(res);
      assert.deepEqual(
        s.dataProblems.map(p => p.field),
        ['line 2, column commit', 'line 3, column role', 'line 4, column path'],
      );
      assert.equal(s.files.unattributed.length, 1);
      const noHeader = summarize(await scanOf({ 'm/bench-triage.csv': 'a.json,abcdef1,human\n' }));
      assert.match(noHeader.dataProblems[0].message, /no "path" column/);
    });
  });

  describe('workload from the file and the command, per tool and form', () => {
    it('vllm bench serve defaults to random, the old script to sharegpt; --input-len is --random-input-len', () => {
      const cli = commandWorkload('vllm bench serve --model m --input-len 512 --output-len 64')!;
      const old = commandWorkload('python benchmarks/benchmark_serving.py --model m --dataset-name random --random-input-len 512 --random-output-len 64')!;
      assert.equal(cli.values.dataset!.value, 'random');
      assert.equal(cli.values.dataset!.from, 'default of vllm bench serve');
      assert.equal(commandWorkload('python benchmarks/benchmark_serving.py --model m')!.values.dataset!.value, 'sharegpt');
      assert.equal(cli.values.input_len!.value, '512');
      assert.equal(cli.values.input_len!.from, '--input-len');
      assert.equal(old.values.input_len!.value, '512');
      assert.deepEqual({ ...cli.flags }, {}, '--input-len is no flag of its own');
      const sym = commandWorkload('vllm bench serve --model m --random-input-len 1000 --random-range-ratio 0.5')!;
      assert.equal(sym.values.input_len!.value, '500–1500', 'the CLI draws L·(1±r)');
    });

    it('runs with different prompt counts, datasets or rates are incomparable, naming the field and both values', () => {
      const mk = (role: Run['role'], command: string | null, workload?: Run['workload']): Run =>
        ({
          id: role,
          commit: 'c',
          role,
          source: 'vllm bench serve',
          agent: null,
          project: 'vllm',
          status: 'success',
          originalStatus: 'completed',
          error: null,
          errorField: null,
          metrics: { output_throughput_tok_s: 100 },
          metricSources: {},
          counts: {},
          logs: [],
          logFiles: [],
          model: 'm',
          command,
          benchmarkMode: 'serving',
          gpuConfig: null,
          image: null,
          fixes: [],
          version: null,
          parent: null,
          timestamp: null,
          durationS: null,
          problems: [],
          provenance: { file: `${role}.json`, schema: 'vllm-serve', pointer: '(document)' },
          ...(workload ? { workload } : {}),
        }) as Run;
      const c = comparability({
        human: mk('human', null, { num_prompts: { value: '100', from: 'num_prompts' }, request_rate: { value: 'inf', from: 'request_rate' } }),
        agent: mk('agent', null, { num_prompts: { value: '1000', from: 'num_prompts' }, request_rate: { value: '10', from: 'request_rate' } }),
      });
      assert.ok(c.reasons.includes('workloads differ on requests: human 100 (num_prompts), agent 1000 (num_prompts)'), c.reasons.join(' | '));
      assert.ok(c.reasons.includes('workloads differ on request rate (req/s): human inf (request_rate), agent 10 (request_rate)'), c.reasons.join(' | '));
      const d = comparability({
        human: mk('human', 'vllm bench serve --model m'),
        agent: mk('agent', 'python benchmarks/benchmark_serving.py --model m'),
      });
      assert.ok(
        d.reasons.some(x =>
          x.startsWith('workloads differ on dataset: human random (default of vllm bench serve), agent sharegpt (default of benchmark_serving.py)'),
        ),
        d.reasons.join(' | '),
      );
      // The file and its own command disagree: that is a reason too.
      const e = comparability({ human: mk('human', 'vllm bench serve --model m --num-prompts 100', { num_prompts: { value: '2048', from: 'num_prompts' } }) });
      assert.deepEqual(e.reasons, ['human: its result file says requests 2048 (num_prompts) but its command says 100 (--num-prompts)']);
      assert.equal(runWorkload(mk('human', 'vllm bench serve --model m --num-prompts 100')).values.num_prompts!.value, '100');
    });
  });
});
