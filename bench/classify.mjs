#!/usr/bin/env node
// bench/classify: MB/s of classifying the ISO-Bench corpus and a 1 GB synthetic log, and in the
// same run the MB/s of ripgrep searching the same bytes for the same patterns (single thread,
// as the classifier is; page cache warm for both). Also times `bench-triage report`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CORPUS = path.resolve(ROOT, '../shared/isobench');
const LOG_BYTES = Number(process.env.BENCH_LOG_BYTES ?? 1024 * 1024 * 1024);
const worker = path.join(ROOT, 'dist-bench/classifyWorker.js');
const node = (...args) =>
  JSON.parse(
    execFileSync(process.execPath, [worker, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .trim()
      .split('\n')
      .pop(),
  );
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const timeRg = (args, cwd) => {
  const t0 = process.hrtime.bigint();
  // The built-in patterns as one alternation exceed rg's default 100 MB regex limit: raised, as a user would.
  const p = spawnSync('rg', ['--regex-size-limit', '2G', '--dfa-size-limit', '2G', ...args], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (p.status !== 0 && p.status !== 1) throw new Error(`rg failed: ${p.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

export function benchClassify({ repeat = 3 } = {}) {
  if (spawnSync('rg', ['--version']).status !== 0) throw new Error('ripgrep (rg) is needed: apt-get install ripgrep');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bt-bench-'));
  try {
    const patterns = path.join(dir, 'patterns.txt');
    const pat = node('patterns', patterns);
    // Corpus: the files the classification reads (failed runs' result files and their logs).
    const corpusRuns = Array.from({ length: repeat }, () => node('corpus', CORPUS));
    const { bytes, files } = corpusRuns[0];
    const listFile = path.join(dir, 'files.txt');
    writeFileSync(listFile, files.join('\n'));
    const rgArgs = ['-j1', '--no-ignore', '--hidden', '-c', '-f', patterns, ...files];
    timeRg(rgArgs, CORPUS);
    const rgCorpusMs = median(Array.from({ length: repeat }, () => timeRg(rgArgs, CORPUS)));
    const corpusMs = median(corpusRuns.map(r => r.ms));
    // 1 GB log, failure at the end so the whole file is read.
    const log = path.join(dir, 'big.log');
    node('synth', log, String(LOG_BYTES));
    timeRg(['-j1', '-c', '-f', patterns, log]);
    const rgLogMs = median(Array.from({ length: repeat }, () => timeRg(['-j1', '-c', '-f', patterns, log])));
    const logRuns = Array.from({ length: repeat }, () => node('log', log));
    const logMs = median(logRuns.map(r => r.ms));
    // The same with the literal walk in JavaScript rather than WebAssembly (what it was before).
    const logJsMs = median(Array.from({ length: repeat }, () => node('log-js', log).ms));
    // The report command end to end (fresh process, as a user runs it).
    const t0 = process.hrtime.bigint();
    execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'report', CORPUS, '--format', 'md'], { stdio: 'ignore' });
    const reportMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const mb = b => b / 1048576;
    return {
      patterns: pat.patterns,
      skippedPatterns: pat.skipped,
      corpus: {
        files: files.length,
        mb: mb(bytes),
        ms: corpusMs,
        mbps: mb(bytes) / (corpusMs / 1000),
        rgMs: rgCorpusMs,
        rgMbps: mb(bytes) / (rgCorpusMs / 1000),
      },
      log: {
        mb: mb(LOG_BYTES),
        ms: logMs,
        mbps: mb(logRuns[0].bytes) / (logMs / 1000),
        rssMB: Math.max(...logRuns.map(r => r.maxRssMB)),
        category: logRuns[0].category,
        rgMs: rgLogMs,
        rgMbps: mb(logRuns[0].bytes) / (rgLogMs / 1000),
        jsMbps: mb(logRuns[0].bytes) / (logJsMs / 1000),
      },
      reportMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchClassify();
  const row = (name, o) =>
    console.log(
      `  ${name.padEnd(22)} ${o.mb.toFixed(1).padStart(8)} MB   bench-triage ${o.mbps.toFixed(1).padStart(7)} MB/s   rg -j1 ${o.rgMbps.toFixed(1).padStart(8)} MB/s   ratio ${(o.rgMbps / o.mbps).toFixed(1)}×`,
    );
  console.log(`bench/classify  (${r.patterns} built-in line patterns; ${r.skippedPatterns} with lookaround left out for rg; median of 3)`);
  row(`corpus (${r.corpus.files} files)`, r.corpus);
  row('synthetic log', r.log);
  console.log(`  synthetic log: category ${r.log.category}, peak RSS ${r.log.rssMB.toFixed(0)} MB; literal walk in JavaScript ${r.log.jsMbps.toFixed(1)} MB/s`);
  console.log(`  bench-triage report ../shared/isobench --format md: ${r.reportMs.toFixed(0)} ms`);
}
