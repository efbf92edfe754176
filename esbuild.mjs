// Bundles: extension host, language server, webview, CLI (and, with --tests, the test suites).
// Usage: node esbuild.mjs [--watch] [--production] [--tests] [--bench]
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync, statSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { watPlugin } from './scripts/esbuild-wat.mjs';

// The learned stage's model, trained on the labelled corpus before anything is bundled (it is part
// of the core): the CLI is bundled on its own first and runs `rules train` (the file is rewritten
// only when the model changed).
const MODEL = 'src/core/classify/learned/model.generated.json';
if (!process.argv.includes('--watch') && !process.env.BENCH_TRIAGE_NO_TRAIN) {
  await esbuild.build({
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    external: ['vscode', 'cpu-features', '*.node'],
    mainFields: ['module', 'main'],
    loader: { '.py': 'text' },
    plugins: [watPlugin],
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist-train/cli.js',
  });
  execFileSync(process.execPath, ['dist-train/cli.js', 'rules', 'train', 'test/fixtures/failure-logs', '--out', MODEL], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

// The build id: a hash of the core's sources. A persistent index made by another build is not reused.
const hash = createHash('sha1');
const walk = d => {
  for (const n of readdirSync(d).sort()) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else hash.update(p).update(readFileSync(p));
  }
};
walk('src/core');

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  target: 'node20',
  plugins: [watPlugin],
  define: { 'process.env.BENCH_TRIAGE_BUILD': JSON.stringify(hash.digest('hex').slice(0, 12)) },
};

// ESM entry points first: some packages (jsonc-parser) ship UMD builds that esbuild cannot follow.
// ssh2's native add-ons are optional (loaded in try/catch, pure-JS fallback): left out of the bundle.
const node = {
  ...common,
  platform: 'node',
  format: 'cjs',
  external: ['vscode', 'cpu-features', '*.node'],
  mainFields: ['module', 'main'],
  loader: { '.py': 'text' },
};
const builds = [
  { ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js' },
  { ...node, entryPoints: ['src/server/server.ts'], outfile: 'dist/server.js' },
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // Loaded by dist/cli.js only for the commands that drive Docker or git (src/cli/runnerCommands.ts).
  { ...node, entryPoints: ['src/cli/runnerCommands.ts'], outfile: 'dist/cli-runner.js' },
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js' },
];

function testEntries(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...testEntries(p));
    else if (/\.(test|worker)\.ts$/.test(name) || name === 'index.ts') out.push(p);
  }
  return out;
}
if (args.has('--tests')) {
  builds.push({ ...node, entryPoints: testEntries('test/unit'), outdir: 'dist-test/unit', outbase: 'test/unit', external: [...node.external, 'mocha'] });
  builds.push({
    ...node,
    entryPoints: testEntries('test/extension'),
    outdir: 'dist-test/extension',
    outbase: 'test/extension',
    external: [...node.external, 'mocha'],
  });
  builds.push({
    ...node,
    entryPoints: testEntries('test/docker'),
    outdir: 'dist-test/docker',
    outbase: 'test/docker',
    external: [...node.external, 'mocha', 'dockerode'],
  });
}

if (args.has('--bench')) {
  builds.push({
    ...node,
    entryPoints: [
      'bench/scanWorker.ts',
      'bench/classifyWorker.ts',
      'bench/lspWorker.ts',
      'bench/runnerWorker.ts',
      'bench/badInputWorker.ts',
      'bench/workspaceWorker.ts',
      'bench/campaignWorker.ts',
      'bench/buildWorker.ts',
      'bench/ablateWorker.ts',
      'bench/swarmWorker.ts',
    ],
    outdir: 'dist-bench',
    outbase: 'bench',
  });
}

if (args.has('--watch')) {
  for (const b of builds) (await esbuild.context(b)).watch();
  console.log('esbuild: watching');
} else {
  const t0 = Date.now();
  await Promise.all(builds.map(b => esbuild.build(b)));
  chmodSync('dist/cli.js', 0o755);
  console.log(`esbuild: ${builds.length} bundles in ${Date.now() - t0} ms${production ? ' (production)' : ''}`);
}
