#!/usr/bin/env node
// bench/badInput: the bounds on hostile input.
//   - worst time per input and peak RSS of each entry point over a fixed fuzz corpus (fresh process each);
//   - classify-log on an 800 MB one-line log against an 800 MB multi-line log (target ratio ≤ 1.5);
//   - the language server on a 1 MB Markdown note: ms per edit → diagnostics (target ≤ 200 ms).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const worker = path.join(ROOT, 'dist-bench/badInputWorker.js');
const MB = Number(process.env.BENCH_BAD_LOG_MB ?? 800);
const node = (...args) =>
  JSON.parse(
    execFileSync(process.execPath, [worker, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
      .trim()
      .split('\n')
      .pop(),
  );

export function benchBadInput() {
  const fuzz = ['ingest', 'ingest-field', 'classify-log', 'perfcmd', 'patch', 'lsp'].map(e => node('fuzz', e, '200', '20261123'));
  const field = ['samples', 'line'].map(k => node('field-big', k));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bt-bad-'));
  let logs;
  const tracebacks = [];
  try {
    const one = path.join(dir, 'one.log'),
      multi = path.join(dir, 'multi.log');
    node('write', one, String(MB), 'one');
    node('write', multi, String(MB), 'multi');
    // Warm the page cache once for each, then measure.
    node('log', one);
    node('log', multi);
    logs = { one: node('log', one), multi: node('log', multi) };
    rmSync(one);
    rmSync(multi);
    for (const kind of ['line', 'nested', 'frames']) {
      const f = path.join(dir, `${kind}.log`);
      node('write-traceback', f, kind);
      node('log', f);
      tracebacks.push({ kind, ...node('log', f), mb: statSync(f).size / 1048576 });
      rmSync(f);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const lsp = node('lsp-md', String(1024 * 1024), '9');
  return { fuzz, field, logs, ratio: logs.one.ms / logs.multi.ms, lsp, mb: MB, tracebacks };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchBadInput();
  console.log('bench/badInput');
  console.log('| entry point | inputs | worst time per input | peak RSS |\n|---|---:|---:|---:|');
  for (const f of r.fuzz) console.log(`| ${f.entry} | ${f.n} | ${f.worstMs.toFixed(1)} ms | ${f.maxRssMB.toFixed(0)} MB |`);
  for (const f of r.field)
    console.log(
      `field file, ${f.kind === 'samples' ? '1e6 per-request values' : 'a 100 MB line'} (${f.mb.toFixed(0)} MB): ${f.ms.toFixed(0)} ms, peak RSS ${f.maxRssMB.toFixed(0)} MB, ${f.runs} runs`,
    );
  console.log(
    `\n${r.mb} MB log, one line vs lines: ${r.logs.one.ms.toFixed(0)} ms vs ${r.logs.multi.ms.toFixed(0)} ms (ratio ${r.ratio.toFixed(2)}, target ≤ 1.5), peak RSS ${r.logs.one.maxRssMB.toFixed(0)} / ${r.logs.multi.maxRssMB.toFixed(0)} MB; found ${r.logs.one.category} / ${r.logs.multi.category}`,
  );
  for (const t of r.tracebacks)
    console.log(
      `traceback, ${{ line: 'one 100 MB line of frames', nested: '100 000 chained exceptions', frames: '1e6 frames' }[t.kind]} (${t.mb.toFixed(0)} MB): ${t.ms.toFixed(0)} ms (${(t.mb / (t.ms / 1000)).toFixed(0)} MB/s), peak RSS ${t.maxRssMB.toFixed(0)} MB, found ${t.category}`,
    );
  console.log(
    `language server, ${(r.lsp.bytes / 1048576).toFixed(1)} MB Markdown note: median ${r.lsp.medianMs.toFixed(0)} ms per edit → diagnostics (worst ${r.lsp.worstMs.toFixed(0)} ms, incl. ${r.lsp.debounceMs} ms debounce; target ≤ 200 ms)`,
  );
}
