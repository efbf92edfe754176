#!/usr/bin/env node
// bench/fieldScan: scanning 10 000 standalone result files of the field's tools (vllm bench serve,
// appended results, SGLang JSONL, GuideLLM, AIPerf, vllm bench latency — scripts/field-formats.mjs,
// attributed by their <commit>/<role>/ paths) against reading the same files, in the same run.
// Each figure is the median of N fresh processes (dist-bench/scanWorker.js). Target: ≤ 1.5× the
// reference read (fs.readFile, 8 at a time, as bench/workspace); the synchronous floor is shown for scale.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aiperfExport, guidellmReport, pyJson, sglangLine, vllmLatency, vllmServeCli } from '../scripts/field-formats.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const N = Number(process.env.BENCH_REPEAT ?? 5);
const FILES = Number(process.env.BENCH_FIELD_FILES ?? 10_000);
const worker = path.join(ROOT, 'dist-bench/scanWorker.js');
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The folder: the tools' files in a realistic mix, 3 roles per commit. */
export function writeFieldFolder(dir, files = FILES) {
  const roles = ['baseline', 'human', 'agent/my-agent'];
  // Templates rendered once per kind, then varied by seed in a few fields (the generator is the slow part, not the point).
  const kinds = [
    [0.6, s => pyJson(vllmServeCli({ seed: s % 50, numPrompts: 200 })), 'openai-infqps-opt-125m.json'],
    [0.1, s => [1, 2, 3].map(k => pyJson(vllmServeCli({ seed: (s + k) % 50, numPrompts: 100 }))).join('\n'), 'appended.json'],
    [0.1, s => [1, 2].map(k => pyJson(sglangLine({ seed: (s + k) % 50, numPrompts: 100 }))).join('\n') + '\n', 'sglang.jsonl'],
    [0.1, s => pyJson(guidellmReport({ seed: s % 20, requests: 20 })), 'benchmarks.json'],
    [0.05, s => JSON.stringify(aiperfExport({ seed: s % 20, requestCount: 20 }).json, null, 2), 'profile_export_aiperf.json'],
    [0.05, s => JSON.stringify(vllmLatency({ seed: s % 20 }), null, 4), 'latency.json'],
  ];
  const cache = new Map();
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    let u = (i % 100) / 100,
      k = 0;
    while (k < kinds.length - 1 && u >= kinds[k][0]) u -= kinds[k++][0];
    const [, make, name] = kinds[k];
    const key = `${k}:${i % 50}`;
    if (!cache.has(key)) cache.set(key, make(i));
    const commit = (0x10000000 + Math.floor(i / 3)).toString(16);
    const p = path.join(dir, commit, roles[i % 3], name);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, cache.get(key));
    bytes += cache.get(key).length;
  }
  return bytes;
}

export function benchFieldScan() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bt-field-bench-'));
  try {
    const bytes = writeFieldFolder(dir);
    const once = mode => JSON.parse(execFileSync(process.execPath, [worker, mode, dir], { encoding: 'utf8' }));
    once('read');
    once('scan');
    const read = [],
      floor = [],
      parsed = [],
      scanned = [];
    for (let i = 0; i < N; i++) {
      read.push(once('read'));
      floor.push(once('floor'));
      parsed.push(once('parse'));
      scanned.push(once('scan'));
    }
    return {
      files: read[0].files,
      mb: bytes / 1048576,
      runs: scanned[0].bytes,
      readMs: median(read.map(r => r.ms)),
      floorMs: median(floor.map(r => r.ms)),
      parseMs: median(parsed.map(r => r.ms)),
      scanMs: median(scanned.map(r => r.ms)),
      scanRssMB: median(scanned.map(r => r.maxRssMB)),
      // The extension's cold load of the same folder: scan, classify, then triage (per-request bootstraps).
      load: JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/workspaceWorker.js'), 'cold', dir, 'holds'], { encoding: 'utf8' })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchFieldScan();
  console.log(`bench/fieldScan  ${r.files} standalone result files, ${r.mb.toFixed(1)} MB, ${r.runs} runs; median of ${N} fresh processes`);
  console.log(`  read the same files : ${r.readMs.toFixed(0).padStart(6)} ms   (fs.readFile, 8 at a time: the reference)`);
  console.log(`  synchronous floor   : ${r.floorMs.toFixed(0).padStart(6)} ms   (one readFileSync each, for scale)`);
  console.log(`  read + JSON.parse   : ${r.parseMs.toFixed(0).padStart(6)} ms`);
  console.log(`  full scan           : ${r.scanMs.toFixed(0).padStart(6)} ms   peak RSS ${r.scanRssMB.toFixed(0)} MB`);
  console.log(`  scan / read         : ${(r.scanMs / r.readMs).toFixed(2)}x (target ≤ 1.5)`);
  console.log(`  scan / read + parse : ${(r.scanMs / r.parseMs).toFixed(2)}x`);
  console.log(`  scan / floor        : ${(r.scanMs / r.floorMs).toFixed(2)}x`);
  const l = r.load;
  console.log(
    `  Workspace cold load : ${l.ms.toFixed(0).padStart(6)} ms   (read ${l.phases.listAndRead}, classify ${l.phases.classify}, triage ${l.phases.triage} ms; the thread held ${l.holdMs.worst.toFixed(0)} ms at most)`,
  );
}
