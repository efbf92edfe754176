#!/usr/bin/env node
// bench/rules: `bench-triage rules test` on the labelled failure corpus. Writes its summary to
// bench/rules-test.txt, and times classifying the corpus against reading the same files (the
// reference in the same run), in fresh processes as a user runs them.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CORPUS = path.join(ROOT, 'test/fixtures/failure-logs');
const CLI = path.join(ROOT, 'dist/cli.js');
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = f => {
  const t0 = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

export function benchRules({ repeat = 5 } = {}) {
  const files = readdirSync(CORPUS).flatMap(d => readdirSync(path.join(CORPUS, d)).map(f => path.join(CORPUS, d, f)));
  const read = `const fs=require('fs');let n=0;for(const f of ${JSON.stringify(files)})n+=fs.readFileSync(f).length;`;
  const readMs = median(Array.from({ length: repeat }, () => time(() => execFileSync(process.execPath, ['-e', read]))));
  const rulesMs = median(
    Array.from({ length: repeat }, () => time(() => execFileSync(process.execPath, [CLI, 'rules', 'test', CORPUS, '--json'], { maxBuffer: 64 << 20 }))),
  );
  const startMs = median(Array.from({ length: repeat }, () => time(() => execFileSync(process.execPath, [CLI, '--help']))));
  // Quality on the corpus the rules came from, under leave-one-thread-out for the learned stage,
  // and on the development and sealed sets of real excerpts (test/devset), per stage.
  const sets = [
    ['fixtures', [CORPUS]],
    ['fixtures, leave one thread out', [CORPUS, '--cross-validate']],
    ['development set', [path.join(ROOT, 'test/devset/dev')]],
    ['development set, structure stage alone', [path.join(ROOT, 'test/devset/dev'), '--stage', 'structure']],
    ['sealed set', [path.join(ROOT, 'test/devset/sealed')]],
  ];
  const quality = sets.map(([name, args]) => {
    const q = JSON.parse(execFileSync(process.execPath, [CLI, 'rules', 'test', ...args, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    return { name, logs: q.logs, correct: q.correct, wrong: q.wrong, stages: q.stages };
  });
  const text = [CORPUS, path.join(ROOT, 'test/devset/dev'), path.join(ROOT, 'test/devset/sealed')]
    .map(d => execFileSync(process.execPath, [CLI, 'rules', 'test', d], { encoding: 'utf8' }).replaceAll(ROOT + '/', ''))
    .join('\n\n');
  writeFileSync(path.join(ROOT, 'bench/rules-test.txt'), text);
  const s = JSON.parse(execFileSync(process.execPath, [CLI, 'rules', 'test', CORPUS, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  const recalls = s.categories.filter(c => c.logs > 0).map(c => c.recall);
  return {
    logs: s.logs,
    correct: s.correct,
    minRecall: Math.min(...recalls),
    neverFired: s.neverFired.length,
    rulesMs,
    readMs,
    startMs,
    bytes: files.reduce((n, f) => n + readFileSync(f).length, 0),
    quality,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchRules();
  console.log(`rules test: ${r.correct}/${r.logs} as labelled, lowest recall ${r.minRecall.toFixed(2)}, ${r.neverFired} rules never fired`);
  console.log(
    `rules test on the corpus (${(r.bytes / 1024).toFixed(0)} KB): ${r.rulesMs.toFixed(0)} ms vs reading the same files ${r.readMs.toFixed(0)} ms (${(r.rulesMs / r.readMs).toFixed(2)}×, both fresh node processes)`,
  );
  console.log(`of which CLI start-up (--help): ${r.startMs.toFixed(0)} ms`);
  for (const q of r.quality)
    console.log(
      `${q.name}: ${q.correct}/${q.logs} right (${((100 * q.correct) / q.logs).toFixed(1)} %), ${q.wrong} wrong (${((100 * q.wrong) / q.logs).toFixed(1)} %); ${q.stages.map(x => `${x.stage} ${x.correct}/${x.answered}`).join(', ')}`,
    );
  console.log('summary written to bench/rules-test.txt');
}
