#!/usr/bin/env node
// bench/lsp: latency of the language server's diagnostics on the real 4 MB dataset over stdio —
// from didOpen, and from one incremental edit (includes the server's 50 ms typing debounce).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DATASET = path.resolve(ROOT, '../shared/isobench/hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl');

export function benchLsp() {
  return JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/lspWorker.js'), DATASET, '7'], { encoding: 'utf8' }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchLsp();
  console.log(`bench/lsp  (${(r.bytes / 1048576).toFixed(1)} MB dataset over --stdio, median of 7)`);
  console.log(`  didOpen → diagnostics          ${r.openMs.toFixed(0).padStart(5)} ms`);
  console.log(`  incremental edit → diagnostics ${r.editMs.toFixed(0).padStart(5)} ms (incl. ${r.debounceMs} ms debounce)`);
}
