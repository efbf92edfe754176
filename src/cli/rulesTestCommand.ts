import { promises as fs } from 'node:fs';
import path from 'node:path';
import { BUILTIN_RULES, Classifier, parseLabel, scoreRuleTest, type Rule, type RuleTestCase } from '../core/classify';
import { ROLES, type Role } from '../core/model';
import { classifyLogFile } from './classifyCommands';
import { loadUserRules } from './analyzeFolder';
import { clean } from './terminal';

type Out = (s: string) => void;

export interface RulesTestArgs {
  folder: string;
  json: boolean;
  rules?: string;
  tsv?: string;
  minRecall?: number;
}

const LOG_FILE = /\.(?:log|txt)$/i;
/** Header bytes read to find the labels (a header is a few short lines). */
const HEAD_BYTES = 16 * 1024;

async function logFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await logFiles(p)));
    else if (e.isFile() && LOG_FILE.test(e.name)) out.push(p);
  }
  return out.sort();
}

/** `file<TAB>category[<TAB>role]` lines; `#` starts a comment. Paths are relative to the TSV's folder. */
async function readTsv(file: string): Promise<Map<string, { expected: string; role: string | null }>> {
  const out = new Map<string, { expected: string; role: string | null }>();
  const text = await fs.readFile(file, 'utf8');
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const [f, expected, role] = line.replace(/\r$/, '').split('\t');
    if (!f || !expected) throw new Error(`${file}:${i + 1}: expected "file<TAB>category[<TAB>role]"`);
    out.set(path.resolve(path.dirname(file), f), { expected: expected.trim(), role: role?.trim() || null });
  });
  return out;
}

/** Classifies one labelled log the way `classify-log` does, after its header. */
async function runCase(
  classifier: Classifier,
  file: string,
  tsv: Map<string, { expected: string; role: string | null }>,
  err: Out,
): Promise<RuleTestCase | null> {
  const handle = await fs.open(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    head = buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
  const label = parseLabel(head);
  const fromTsv = tsv.get(path.resolve(file));
  const expected = fromTsv?.expected ?? label.expected;
  for (const p of label.problems) err(`${clean(file)}: ${p}\n`);
  if (!expected) {
    err(`${clean(file)}: no "# expected: <category>" line and not in the TSV; skipped\n`);
    return null;
  }
  if (fromTsv?.role && !(ROLES as readonly string[]).includes(fromTsv.role))
    err(`${clean(file)}: TSV role "${fromTsv.role}" is not one of ${ROLES.join(', ')}\n`);
  const role = fromTsv?.role && (ROLES as readonly string[]).includes(fromTsv.role) ? (fromTsv.role as Role) : label.role;
  const r = await classifyLogFile(file, [], classifier, { ...label, role });
  const evidence = r.evidence ? { file, field: null, ...r.evidence } : null;
  return {
    file,
    expected,
    got: r.category ?? 'success',
    cause: r.cause,
    rule: r.rule,
    strength: (r.strength ?? 'none') as RuleTestCase['strength'],
    evidence,
    fired: r.findings.flatMap(f => (f.rule ? [f.rule] : [])),
    candidates: r.candidates.length ? r.candidates.map(c => ({ file, field: null, ...c })) : evidence ? [evidence] : [],
  };
}

const pct = (x: number | null) => (x === null ? '   -' : x.toFixed(2));

/** `bench-triage rules test <folder>`: per-category precision and recall, the misses, the rules that never fired. */
export async function rulesTestCommand(a: RulesTestArgs, out: Out, err: Out): Promise<number> {
  const stat = await fs.stat(a.folder).catch(() => null);
  if (!stat?.isDirectory()) throw new Error(`rules test: ${a.folder} is not a folder`);
  const userRules: Rule[] = a.rules ? loadUserRules(a.folder, a.rules, err) : [];
  const classifier = new Classifier({ userRules });
  const tsvFile = a.tsv ?? path.join(a.folder, 'expected.tsv');
  const tsv = await fs.access(tsvFile).then(
    () => readTsv(tsvFile),
    () => {
      if (a.tsv) throw new Error(`rules test: --tsv ${a.tsv} cannot be read`);
      return new Map();
    },
  );
  const cases: RuleTestCase[] = [];
  for (const f of await logFiles(a.folder)) {
    const c = await runCase(classifier, f, tsv, err);
    if (c) cases.push(c);
  }
  const ids = [...userRules.map(r => r.id), ...BUILTIN_RULES.map(r => r.id)];
  const s = scoreRuleTest(cases, ids);
  const low = s.categories.filter(c => c.logs > 0 && (c.recall ?? 0) < (a.minRecall ?? 0));
  if (a.json) {
    out(JSON.stringify({ folder: a.folder, ...s, belowMinRecall: low.map(c => c.category) }, null, 2));
    return low.length ? 1 : 0;
  }
  const rel = (f: string) => clean(path.relative(a.folder, f));
  out(
    `rules test: ${s.logs} labelled logs in ${clean(a.folder)}, ${s.correct} classified as expected (${((100 * s.correct) / Math.max(1, s.logs)).toFixed(1)} %)`,
  );
  out('');
  out(`${'category'.padEnd(24)} ${'logs'.padStart(5)} ${'precision'.padStart(9)} ${'recall'.padStart(7)}`);
  for (const c of s.categories)
    out(`${clean(c.category).padEnd(24)} ${String(c.logs).padStart(5)} ${pct(c.precision).padStart(9)} ${pct(c.recall).padStart(7)}`);
  out('');
  if (s.misses.length) {
    out(`misses (${s.misses.length}):`);
    for (const m of s.misses) {
      out(`  ${rel(m.file)}: expected ${clean(m.expected)}, got ${clean(m.got)}${m.rule ? ` (rule ${clean(m.rule)})` : ''}`);
      for (const e of m.candidates.slice(-3)) out(`      line ${e.line}: ${clean(e.text.slice(0, 160))}`);
    }
    out('');
  } else out('misses: none');
  out(s.neverFired.length ? `rules that never fired (${s.neverFired.length}): ${s.neverFired.map(clean).join(', ')}` : 'every rule fired at least once');
  if (low.length) err(`recall below ${a.minRecall} for: ${low.map(c => c.category).join(', ')}\n`);
  return low.length ? 1 : 0;
}
