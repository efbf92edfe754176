#!/usr/bin/env node
// bench/build: build-log capture on a real engine (Builder vs the docker CLI's classic builder on
// the same ~64 MB build output), the stream decoder vs writing the same bytes, and the time from
// the engine's first chunk to the first byte in build.log (and in the live document).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export function benchBuild() {
  return JSON.parse(
    execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/buildWorker.js')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchBuild();
  console.log('bench/build  (real dockerd, fake vLLM image as the base; medians of 3)');
  console.log(
    `  build printing ${r.mb.toFixed(0)} MB: Builder ${r.buildsMs.toFixed(0)} ms vs docker build (classic) ${r.cliMs.toFixed(0)} ms  (${r.ratio.toFixed(2)}×), ${r.mbps.toFixed(0)} MB/s captured`,
  );
  console.log(
    `  decoder + build.log ${r.decode.mbps.toFixed(0)} MB/s vs writing the same ${r.decode.mb.toFixed(0)} MB ${r.decode.refMbps.toFixed(0)} MB/s  (${(r.decode.refMbps / r.decode.mbps).toFixed(2)}× slower)`,
  );
  console.log(`  first engine chunk → first byte in build.log ${r.ttfbDiskMs.toFixed(0)} ms (→ the live document: bench/editor.mjs)`);
}
