// The inner loop: `npm run test:unit -- <file or grep>…` bundles only the unit test files named
// (a name is a file of test/unit, whole or in part: `perfcmd`, `campaign.test`) and runs them; an
// argument that names no file is a mocha --grep over all unit tests. With no argument: every unit
// test but the slow group (`@slow` in a title); `--slow` runs the slow group alone, `--all` both.
// Bundles skip the learned model's training and the editor's bundles (`npm run build` does those);
// tests that run the CLI need `dist/cli.js` and `dist/cli-runner.js` from a build.
import * as esbuild from 'esbuild';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { watPlugin } from './esbuild-wat.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const UNIT = join(ROOT, 'test/unit');
const args = process.argv.slice(2);
const flags = new Set(args.filter(a => a.startsWith('--')));
const words = args.filter(a => !a.startsWith('--'));

const files = dir =>
  readdirSync(dir).flatMap(n => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
const tests = files(UNIT).filter(p => p.endsWith('.test.ts'));
const workers = files(UNIT).filter(p => p.endsWith('.worker.ts'));

const named = new Set();
const greps = [];
for (const w of words) {
  const hits = tests.filter(p => relative(UNIT, p).includes(w));
  if (hits.length) hits.forEach(h => named.add(h));
  else greps.push(w);
}
const picked = named.size ? [...named] : tests;

const t0 = Date.now();
await esbuild.build({
  bundle: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  target: 'node20',
  platform: 'node',
  format: 'cjs',
  external: ['vscode', 'cpu-features', '*.node', 'mocha'],
  mainFields: ['module', 'main'],
  loader: { '.py': 'text' },
  plugins: [watPlugin],
  entryPoints: [...picked, ...workers],
  outdir: join(ROOT, 'dist-test/unit'),
  outbase: UNIT,
});
const built = Date.now() - t0;
if (!['dist/cli.js', 'dist/cli-runner.js'].every(f => existsSync(join(ROOT, f))))
  console.warn('test:unit: dist/cli.js or dist/cli-runner.js is missing: tests that run the CLI need `npm run build` first');

const out = picked.map(p => join(ROOT, 'dist-test/unit', relative(UNIT, p)).replace(/\.ts$/, '.js'));
const mocha = ['--config', '.mocharc.json', ...out];
if (greps.length) mocha.push('--grep', greps.map(g => g.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
else if (flags.has('--slow')) mocha.push('--grep', '@slow');
else if (!flags.has('--all') && !named.size) mocha.push('--grep', '@slow', '--invert');
console.log(`test:unit: ${picked.length} file${picked.length === 1 ? '' : 's'} bundled in ${built} ms${greps.length ? `, --grep ${greps.join('|')}` : ''}`);
const r = spawnSync(join(ROOT, 'node_modules/.bin/mocha'), mocha, { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
