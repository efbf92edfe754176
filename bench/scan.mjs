#!/usr/bin/env node
// bench/scan: wall time and peak memory of scanning ../shared/isobench, and — measured in the same
// run — the time to simply read the same files. Each figure is the median of N fresh processes.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const FOLDER = process.argv[2] ?? path.resolve(ROOT, '../shared/isobench');
const N = Number(process.env.BENCH_REPEAT ?? 7);
const worker = path.join(ROOT, 'dist-bench/scanWorker.js');
const once = mode => JSON.parse(execFileSync(process.execPath, [worker, mode, FOLDER], { encoding: 'utf8' }));
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function benchScan() {
  once('read');
  once('scan'); // warm the page cache
  const read = [],
    scanned = [];
  for (let i = 0; i < N; i++) {
    read.push(once('read'));
    scanned.push(once('scan'));
  }
  return {
    folder: FOLDER,
    files: read[0].files,
    mb: read[0].bytes / 1048576,
    runs: scanned[0].bytes,
    readMs: median(read.map(r => r.ms)),
    readRssMB: median(read.map(r => r.maxRssMB)),
    scanMs: median(scanned.map(r => r.ms)),
    scanRssMB: median(scanned.map(r => r.maxRssMB)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchScan();
  console.log(`bench/scan  ${r.folder}  (${r.files} JSON/JSONL files, ${r.mb.toFixed(1)} MB, ${r.runs} runs; median of ${N} fresh processes)`);
  console.log(`  read the same files : ${r.readMs.toFixed(0).padStart(6)} ms   peak RSS ${r.readRssMB.toFixed(0)} MB`);
  console.log(`  full scan           : ${r.scanMs.toFixed(0).padStart(6)} ms   peak RSS ${r.scanRssMB.toFixed(0)} MB`);
  console.log(`  scan / read         : ${(r.scanMs / r.readMs).toFixed(2)}x`);
}
