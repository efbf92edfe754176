// Writes the labelled failure-log corpus (test/fixtures/failure-logs/<category>/<name>.log), or
// with --check compares it with what is on disk. Each file opens with `# key: value` lines that
// `bench-triage rules test` reads: expected (the category), role, context; signature and source say
// what the log shows and where that signature is known from.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENVIRONMENT } from './specs-environment.mjs';
import { RUNTIME } from './specs-runtime.mjs';
import { MEASUREMENT } from './specs-measurement.mjs';

export const SPECS = [...ENVIRONMENT, ...RUNTIME, ...MEASUREMENT];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/failure-logs');

export function render(spec) {
  const head = [`# expected: ${spec.category}`, `# signature: ${spec.signature}`, `# source: ${spec.source}`];
  if (spec.role) head.push(`# role: ${spec.role}`);
  if (spec.context) head.push(`# context: ${spec.context}`);
  return [...head, '#', ...spec.lines()].join('\n') + '\n';
}

function main() {
  const check = process.argv.includes('--check');
  const want = new Map(SPECS.map(s => [path.join(s.category, `${s.name}.log`), render(s)]));
  if (want.size !== SPECS.length) throw new Error('two specs share a category and name');
  let bad = 0;
  for (const [rel, text] of want) {
    const file = path.join(root, rel);
    const have = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    if (have === text) continue;
    if (check) {
      console.error(`out of date: ${rel}`);
      bad++;
    } else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  if (fs.existsSync(root))
    for (const dir of fs.readdirSync(root))
      for (const f of fs.statSync(path.join(root, dir)).isDirectory() ? fs.readdirSync(path.join(root, dir)) : [])
        if (!want.has(path.join(dir, f))) {
          if (check) {
            console.error(`not from a spec: ${dir}/${f}`);
            bad++;
          } else fs.rmSync(path.join(root, dir, f));
        }
  console.log(check ? `${want.size} corpus files checked, ${bad} out of date` : `${want.size} corpus files written to ${path.relative(process.cwd(), root)}`);
  process.exit(bad ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
