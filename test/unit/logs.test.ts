import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodePythonBytesDumps, guessTruncation, indexLog, stripAnsi } from '../../src/core/logs';
import { parsePrintedMetrics } from '../../src/core/metrics';
import { ISOBENCH, requireCorpus } from './helpers';

describe('logs: index [ISO-Bench data]', () => {
  const log = [
    '=== Starting vLLM server for HUMAN benchmark ===', // 1
    'INFO 01-02 15:28:20 [__init__.py:256] Automatically detected platform cuda.',
    'a1b2c3d4e5f6: Pull complete', // 3 docker pull
    '\x1b[1;36m(APIServer pid=12)\x1b[0;0m INFO loading', // 4 ansi
    'SERVER_READY_AFTER=42s', // 5
    '=== Running HUMAN serving benchmark ===', // 6
    '============ Serving Benchmark Result ============', // 7
    'Successful requests:                     100',
    'Request throughput (req/s):              8.10',
    'Mean TTFT (ms):                          41.20',
    '==================================================', // 11
    'BENCHMARK_DONE', // 12
    '=== Running AGENT serving benchmark ===', // 13
    'Fixing rope_scaling compatibility...', // 14 echo, not an error
    '[rank0]: Traceback (most recent call last):', // 15
    '[rank0]:   File "/x/vllm/config.py", line 140, in __init__',
    '[rank0]: ValueError: Unknown RoPE scaling type llama3', // 17
    'SERVER_CRASHED',
  ].join('\n');

  it('finds phases from runner markers, result blocks, tracebacks, first error, ANSI and pull noise', () => {
    const ix = indexLog(log);
    assert.equal(ix.lineCount, 18);
    assert.deepEqual(
      ix.phases.map(p => [p.name, p.startLine, p.endLine]),
      [
        ['human server', 1, 4],
        ['benchmark (server ready after 42s)', 5, 5],
        ['human serving benchmark', 6, 12],
        ['agent serving benchmark', 13, 18],
      ],
    );
    assert.deepEqual(
      ix.resultBlocks.map(b => [b.startLine, b.endLine]),
      [[7, 11]],
    );
    assert.deepEqual(
      ix.tracebacks.map(t => [t.startLine, t.endLine, t.title]),
      [[15, 17, 'ValueError: Unknown RoPE scaling type llama3']],
    );
    assert.deepEqual(ix.firstError, { line: 15, text: '[rank0]: Traceback (most recent call last):' });
    assert.equal(ix.ansi, true);
    assert.equal(ix.dockerPullLines, 1);
    assert.equal(stripAnsi(log.split('\n')[3]), '(APIServer pid=12) INFO loading');
  });

  it('reports truncation at the known caps', () => {
    assert.deepEqual(guessTruncation('x'.repeat(3000)), { kind: 'head', cap: 3000 });
    assert.deepEqual(guessTruncation('x'.repeat(10000)), { kind: 'tail', cap: 10000 });
    assert.deepEqual(guessTruncation('x'.repeat(8000)), { kind: 'tail', cap: 8000 });
    assert.equal(guessTruncation('x'.repeat(4321)), null);
    assert.deepEqual(indexLog('x'.repeat(5000)).truncation, { kind: 'tail', cap: 5000 });
  });

  it('flags the real truncated outputs of the corpus', () => {
    requireCorpus();
    const f = path.join(ISOBENCH, 'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/98f47f2a/benchmark_result.json');
    const raw = JSON.parse(fs.readFileSync(f, 'utf8')).result.baseline_raw as string;
    assert.equal(raw.length, 3000);
    assert.deepEqual(indexLog(raw, { kind: 'head', cap: 3000 }).truncation, { kind: 'head', cap: 3000 });
  });

  it('decodes Python byte-literal dumps into lines', () => {
    const dump = 'Failed to start vLLM server\nb\'INFO start\\nTraceback (most recent call last):\\n  File "x.py", line 1\\nValueError: boom\\n\'';
    const d = decodePythonBytesDumps(dump);
    assert.deepEqual(d.split('\n'), [
      'Failed to start vLLM server',
      'INFO start',
      'Traceback (most recent call last):',
      '  File "x.py", line 1',
      'ValueError: boom',
      '',
    ]);
  });

  it('parses every printed result format, last occurrence winning', () => {
    const m = parsePrintedMetrics(
      [
        'INFO metrics.py:453] Avg prompt throughput: 11184.4 tokens/s, Avg generation throughput: 1193.5 tokens/s',
        '============ Serving Benchmark Result ============',
        'Successful requests:                     100',
        'Request throughput (req/s):              8.10',
        'Output token throughput (tok/s):         1036.80',
        'Total Token throughput (tok/s):          3000.5',
        'Mean TTFT (ms):                          41.20',
        'Median TTFT (ms):                        39.80',
        'P99 TTFT (ms):                           77.00',
        'Mean TPOT (ms):                          9.81',
        'Mean E2EL (ms):                          900.1',
      ].join('\n'),
    );
    assert.deepEqual(m.metrics, {
      request_throughput_req_s: 8.1,
      output_throughput_tok_s: 1036.8,
      total_throughput_tok_s: 3000.5,
      ttft_mean_ms: 41.2,
      ttft_median_ms: 39.8,
      ttft_p99_ms: 77,
      tpot_mean_ms: 9.81,
      e2el_mean_ms: 900.1,
    });
    assert.deepEqual(m.counts, { successful_requests: 100 });
    assert.deepEqual(parsePrintedMetrics('Throughput: 12.50 requests/s, 6400.00 tokens/s').metrics, {
      request_throughput_req_s: 12.5,
      total_throughput_tok_s: 6400,
    });
    assert.deepEqual(parsePrintedMetrics('Throughput: 1.5 requests/s, 700.0 total tokens/s, 300.0 output tokens/s').metrics, {
      request_throughput_req_s: 1.5,
      total_throughput_tok_s: 700,
      output_throughput_tok_s: 300,
    });
    assert.deepEqual(
      parsePrintedMetrics('Avg latency: 1.0215 seconds\n50% percentile latency: 1.01 seconds\n99% percentile latency: 1.2 seconds\nAvg latency: 1.5 seconds')
        .metrics,
      { latency_avg_ms: 1500, latency_p50_ms: 1010, latency_p99_ms: 1200 },
    );
  });
});
