import { existsSync, promises as fs } from 'node:fs';
import { ReadRefused, readTextBounded } from '../platform/boundedRead';
import path from 'node:path';
import {
  BUILTIN_RULES,
  Classifier,
  crossValidate,
  LEARNED_THRESHOLD,
  labelExamples,
  parseLabel,
  scoreRuleTest,
  stageOf,
  trainModel,
  builtinModel,
  type Label,
  type Rule,
  type RuleTestCase,
  isKnownCategory,
} from '../core/classify';
import { loadLabels } from './labelsFile';
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
  /** Leave one source (`# source:`) out at a time for the learned stage. */
  crossValidate?: boolean;
  /** One stage alone, as if the ones before it found nothing (measurement). */
  stage?: 'structure' | 'learned';
}

const LOG_FILE = /\.(?:log|txt)$/i;
/** Header bytes read to find the labels (a header is a few short lines). */
const HEAD_BYTES = 16 * 1024;

async function logFiles(dir: string, err: Out): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await logFiles(p, err)));
    else if (e.isFile() && LOG_FILE.test(e.name)) out.push(p);
    else if (LOG_FILE.test(e.name)) err(`${clean(p)}: ${e.isSymbolicLink() ? 'a symbolic link' : e.isFIFO() ? 'a FIFO' : 'not a regular file'}; skipped\n`);
  }
  return out.sort();
}

/** `file<TAB>category[<TAB>role]` lines; `#` starts a comment. Paths are relative to the TSV's folder. */
async function readTsv(file: string, err: Out): Promise<Map<string, { expected: string; role: string | null }>> {
  const out = new Map<string, { expected: string; role: string | null }>();
  const text = await readTextBounded(file, { maxBytes: 16 * 1024 * 1024, follow: true, what: 'the TSV' });
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const [f, expected, role] = line.replace(/\r$/, '').split('\t');
    if (!f || !expected) throw new Error(`${file}:${i + 1}: expected "file<TAB>category[<TAB>role]"`);
    const at = path.resolve(path.dirname(file), f);
    if (!isKnownCategory(expected.trim())) err(`${clean(file)}:${i + 1}: category "${clean(expected.trim())}" is not a built-in category\n`);
    if (!existsSync(at)) err(`${clean(file)}:${i + 1}: ${clean(f)} does not exist\n`);
    out.set(at, { expected: expected.trim(), role: role?.trim() || null });
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
  const bom = head.charCodeAt(0) === 0xfeff;
  const label = parseLabel(bom ? head.slice(1) : head);
  if (bom && label.headerBytes > 0) label.headerBytes += 3;
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
    source: label.source,
    tokens: r.learned?.tokens,
    guess: r.learned?.guess ?? null,
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

/** A label of the folder's `.bench-triage/labels.json` as a case: its lines are the log. */
function labelCase(classifier: Classifier, l: Label, labelsFile: string): RuleTestCase {
  const c = classifier.classify({
    role: l.role,
    status: 'failed',
    texts: [{ source: { file: labelsFile, field: l.run }, text: l.lines.map(x => x.text).join('\n'), scope: 'output' }],
    context: '',
  });
  return {
    file: `${labelsFile}#${l.run}`,
    source: `label:${l.run}`,
    expected: l.category,
    got: c.category,
    cause: c.cause,
    rule: c.rule,
    strength: c.strength,
    evidence: c.evidence,
    fired: c.findings.flatMap(f => (f.rule ? [f.rule] : [])),
    candidates: c.candidates ?? (c.evidence ? [c.evidence] : []),
    tokens: c.learned?.tokens,
    guess: c.learned?.guess ? { category: c.learned.guess.category, p: c.learned.guess.p } : null,
  };
}

/** Every labelled log of a folder (and its labels), classified; with `features`, the learned stage's tokens kept. */
async function collectCases(a: { folder: string; tsv?: string; rules?: string }, classifier: Classifier, labels: Label[], err: Out): Promise<RuleTestCase[]> {
  const tsvFile = a.tsv ?? path.join(a.folder, 'expected.tsv');
  const tsv = await fs.access(tsvFile).then(
    () =>
      readTsv(tsvFile, err).catch(e => {
        throw new Error(`rules test: ${e instanceof ReadRefused ? e.message : `--tsv ${tsvFile} cannot be read (${(e as Error).message})`}`);
      }),
    () => {
      if (a.tsv) throw new Error(`rules test: --tsv ${a.tsv} cannot be read`);
      return new Map();
    },
  );
  const cases: RuleTestCase[] = [];
  for (const f of await logFiles(a.folder, err)) {
    const c = await runCase(classifier, f, tsv, err);
    if (c) cases.push(c);
  }
  const labelsFile = path.join(a.folder, '.bench-triage', 'labels.json');
  for (const l of labels) cases.push(labelCase(classifier, l, labelsFile));
  return cases;
}

/** `bench-triage rules train <folder> [--out FILE]`: the learned stage's model from a labelled corpus (and its labels). */
export async function rulesTrainCommand(a: { folder: string; out?: string }, out: Out, err: Out): Promise<number> {
  const stat = await fs.stat(a.folder).catch(() => null);
  if (!stat?.isDirectory()) throw new Error(`rules train: ${a.folder} is not a folder`);
  const labels = loadLabels(a.folder, err);
  const cases = await collectCases(a, new Classifier({ learned: null, features: true }), labels, err);
  const model = trainModel(cases);
  const text = JSON.stringify(model.toJSON(), null, 1) + '\n';
  if (a.out) {
    const old = await fs.readFile(a.out, 'utf8').catch(() => null);
    if (old !== text) await fs.writeFile(a.out, text);
    err(`rules train: ${model.examples} labelled logs → ${a.out}${old === text ? ' (unchanged)' : ''}\n`);
  } else out(text.trimEnd());
  return 0;
}

const pct = (x: number | null) => (x === null ? '   -' : x.toFixed(2));

/** `bench-triage rules test <folder>`: per-category precision and recall, the misses, the rules that never fired. */
export async function rulesTestCommand(a: RulesTestArgs, out: Out, err: Out): Promise<number> {
  const stat = await fs.stat(a.folder).catch(() => null);
  if (!stat?.isDirectory()) throw new Error(`rules test: ${a.folder} is not a folder`);
  const userRules: Rule[] = a.rules ? loadUserRules(a.folder, a.rules, err) : [];
  const labels = loadLabels(a.folder, err);
  // Cross-validation: the rules and structure once (learned stage off), then a model per left-out
  // source. Otherwise the learned stage is the built-in model with the folder's labels on top.
  const only = a.stage ? { only: a.stage } : {};
  const classifier = a.crossValidate
    ? new Classifier({ userRules, learned: null, features: true, ...only })
    : new Classifier({ userRules, learned: builtinModel().with(labelExamples(labels)), ...only });
  const raw = await collectCases(a, classifier, labels, err);
  const cases = a.crossValidate ? crossValidate(raw, LEARNED_THRESHOLD) : raw;
  const ids = [...userRules.map(r => r.id), ...BUILTIN_RULES.map(r => r.id)];
  const s = scoreRuleTest(cases, ids);
  const low = s.categories.filter(c => c.logs > 0 && (c.recall ?? 0) < (a.minRecall ?? 0));
  if (a.json) {
    out(JSON.stringify({ folder: a.folder, ...s, belowMinRecall: low.map(c => c.category) }, null, 2));
    return low.length ? 1 : 0;
  }
  const rel = (f: string) => clean(path.relative(a.folder, f));
  const share = (n: number) => `${((100 * n) / Math.max(1, s.logs)).toFixed(1)} %`;
  out(
    `rules test: ${s.logs} labelled logs in ${clean(a.folder)}${a.stage ? ` (the ${a.stage} stage alone)` : ''}${a.crossValidate ? ' (learned stage: leave one source out)' : ''}, ${s.correct} classified as expected (${share(s.correct)}), ${s.wrong} given a wrong category (${share(s.wrong)})`,
  );
  out('');
  out(`${'stage'.padEnd(12)} ${'answered'.padStart(8)} ${'right'.padStart(6)} ${'wrong'.padStart(6)} ${'precision'.padStart(9)}`);
  for (const st of s.stages)
    out(
      `${st.stage.padEnd(12)} ${String(st.answered).padStart(8)} ${String(st.correct).padStart(6)} ${String(st.wrong).padStart(6)} ${pct(st.stage === 'none' ? null : st.answered ? st.correct / st.answered : null).padStart(9)}`,
    );
  out('');
  out(`${'category'.padEnd(24)} ${'logs'.padStart(5)} ${'precision'.padStart(9)} ${'recall'.padStart(7)}`);
  for (const c of s.categories)
    out(`${clean(c.category).padEnd(24)} ${String(c.logs).padStart(5)} ${pct(c.precision).padStart(9)} ${pct(c.recall).padStart(7)}`);
  out('');
  if (s.misses.length) {
    out(`misses (${s.misses.length}):`);
    for (const m of s.misses) {
      out(
        `  ${rel(m.file)}: expected ${clean(m.expected)}, got ${clean(m.got)}${m.rule ? ` (${stageOf(m.strength) === 'rules' ? 'rule' : stageOf(m.strength)} ${clean(m.rule)})` : ''}${m.got === 'unclassified' && m.guess ? ` — most like ${clean(m.guess.category)} (p = ${m.guess.p.toFixed(2)})` : ''}`,
      );
      for (const e of m.candidates.slice(-3)) out(`      line ${e.line}: ${clean(e.text.slice(0, 160))}`);
    }
    out('');
  } else out('misses: none');
  out(s.neverFired.length ? `rules that never fired (${s.neverFired.length}): ${s.neverFired.map(clean).join(', ')}` : 'every rule fired at least once');
  if (low.length) err(`recall below ${a.minRecall} for: ${low.map(c => c.category).join(', ')}\n`);
  return low.length ? 1 : 0;
}
