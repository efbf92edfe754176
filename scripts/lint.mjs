#!/usr/bin/env node
// The lint of the test command: ESLint (typescript-eslint and the layering of docs/ARCHITECTURE.md), no
// import cycles between core folders (checked here: ESLint sees files, not folders), no unused
// exports (knip), and the formatter's check (Prettier). Prints "lint: N problems" last; exit 1 on any.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = name => path.join(ROOT, 'node_modules', '.bin', name);
let problems = 0;

function step(name, cmd, args) {
  const r = spawnSync(bin(cmd), args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`
    .split('\n')
    .filter(l => l.trim() && !/^npm warn/.test(l))
    .join('\n');
  if (r.status === 0 && !/Unused|problems? \(/.test(out)) {
    console.log(`lint: ${name}: clean`);
    return;
  }
  problems++;
  console.log(`lint: ${name}: FAILED\n${out}`);
}

/** Edges between core folders (core/<a> imports core/<b>), with one example import each. */
export function coreFolderEdges(root = path.join(ROOT, 'src/core')) {
  const edges = new Map();
  const walk = d => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) visit(p);
    }
  };
  const visit = f => {
    const from = path.relative(root, f).split(path.sep)[0];
    for (const i of ts.preProcessFile(readFileSync(f, 'utf8'), true, true).importedFiles) {
      if (!i.fileName.startsWith('.')) continue;
      const to = path.relative(root, path.resolve(path.dirname(f), i.fileName)).split(path.sep)[0];
      if (to === from || to.startsWith('..') || to.endsWith('.ts')) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${path.relative(ROOT, f)} imports ${i.fileName}`);
    }
  };
  walk(root);
  return edges;
}

/** Cycles in the folder graph (each as a list of folders and the imports that close it). */
export function folderCycles(edges) {
  const cycles = [];
  const seen = new Set();
  const dfs = (node, stack) => {
    const at = stack.indexOf(node);
    if (at >= 0) {
      const cyc = stack.slice(at);
      const key = [...cyc].sort().join('>');
      if (!seen.has(key)) {
        seen.add(key);
        cycles.push([...cyc, node].map((n, i, a) => (i < a.length - 1 ? `${n} → ${a[i + 1]} (${edges.get(n).get(a[i + 1])})` : null)).filter(Boolean));
      }
      return;
    }
    for (const next of edges.get(node)?.keys() ?? []) dfs(next, [...stack, node]);
  };
  for (const n of edges.keys()) dfs(n, []);
  return cycles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  step('eslint (typescript-eslint, layering, file cycles)', 'eslint', ['--max-warnings', '0', 'src', 'test', 'bench']);
  const cycles = folderCycles(coreFolderEdges());
  if (cycles.length) {
    problems++;
    console.log(`lint: core folder cycles: FAILED\n${cycles.map(c => `  ${c.join('\n    ')}`).join('\n')}`);
  } else console.log('lint: core folder cycles: clean');
  step('unused exports (knip)', 'knip', ['--no-progress']);
  step('format (prettier --check)', 'prettier', [
    '--check',
    '--log-level',
    'warn',
    'src/**/*.ts',
    'test/**/*.ts',
    'bench/**/*.{ts,mjs}',
    'scripts/**/*.{mjs,cjs}',
    '*.mjs',
  ]);
  console.log(`lint: ${problems} problem${problems === 1 ? '' : 's'}`);
  process.exit(problems ? 1 : 0);
}
