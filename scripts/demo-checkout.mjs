#!/usr/bin/env node
// A small vLLM-like git checkout for the demo, made deterministically (fixed author, dates and
// contents), so the demo's "No vLLM wheel" commit and its parent are real commits with the same ids
// on every machine: Build Image on H100 takes the parent's source from it (git archive).
// Usage: node scripts/demo-checkout.mjs DIR   (prints {"parent", "commit"})
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The checkout's place in the demo workspace (benchTriage.vllmCheckout). */
export const DEMO_CHECKOUT = '.vllm-checkout';

const SETUP = [
  '"""Demo vLLM build (fake image): prints what a CMake + nvcc build of the kernels prints."""',
  'for line in [',
  '    "running build_ext",',
  '    "-- The CUDA compiler identification is NVIDIA 12.4.131",',
  '    "-- CUDA target architectures: 9.0",',
  '    "[1/3] Building CUDA object CMakeFiles/_C.dir/csrc/cache_kernels.cu.o",',
  '    "[2/3] Building CUDA object CMakeFiles/_C.dir/csrc/attention/attention_kernels.cu.o",',
  '    "[3/3] Linking CXX shared module _C.abi3.so",',
  ']:',
  '    print(line, flush=True)',
  '',
].join('\n');

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'core.autocrlf=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Bench Triage demo',
      GIT_AUTHOR_EMAIL: 'demo@bench-triage.invalid',
      GIT_COMMITTER_NAME: 'Bench Triage demo',
      GIT_COMMITTER_EMAIL: 'demo@bench-triage.invalid',
      GIT_AUTHOR_DATE: '2026-01-18T15:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-18T15:00:00Z',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: '/nonexistent',
    },
  }).trim();
}

/** Makes (or finds) the checkout in `dir`; returns the ids of its two commits. */
export function makeDemoCheckout(dir) {
  if (existsSync(path.join(dir, '.git'))) {
    try {
      return { parent: git(dir, 'rev-parse', 'HEAD~1'), commit: git(dir, 'rev-parse', 'HEAD') };
    } catch {
      /* made half-way: start again below */
    }
  }
  mkdirSync(path.join(dir, 'benchmarks'), { recursive: true });
  mkdirSync(path.join(dir, 'vllm'), { recursive: true });
  git(dir, 'init', '-q');
  const bench = path.join(ROOT, 'test/fake-vllm/benchmarks');
  for (const f of readdirSync(bench).sort()) writeFileSync(path.join(dir, 'benchmarks', f), readFileSync(path.join(bench, f)));
  const logger = readFileSync(path.join(ROOT, 'test/fake-vllm/rootfs/opt/fakevllm/vllm/logger.py'), 'utf8');
  writeFileSync(path.join(dir, 'vllm/logger.py'), logger);
  writeFileSync(path.join(dir, 'setup.py'), SETUP);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', '[Core] block manager before the optimisation');
  writeFileSync(path.join(dir, 'vllm/logger.py'), logger.replace('flush=True)', 'flush=True)  # human: one flush per line'));
  git(dir, 'commit', '-qam', '[Core] Optimize block_manager');
  return { parent: git(dir, 'rev-parse', 'HEAD~1'), commit: git(dir, 'rev-parse', 'HEAD') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/demo-checkout.mjs DIR');
    process.exit(2);
  }
  console.log(JSON.stringify(makeDemoCheckout(path.resolve(dir))));
}
