import { CATEGORIES } from './taxonomy';
import type { Evidence, Finding } from './engine';
import { ROLES, type Role } from '../model';
import { NaiveBayes } from './learned/naiveBayes';

/** What a labelled log expects, read from its opening `# key: value` lines. */
export interface LogLabel {
  expected: string | null;
  /** Where the log comes from (`# source:`): a thread, a tool; cross-validation leaves one out at a time. */
  source: string | null;
  role: Role | null;
  context: string;
  /** Bytes and lines of the header (the log itself starts after them). */
  headerBytes: number;
  headerLines: number;
  problems: string[];
}

const HEADER = /^# (expected|role|context|cause|signature|source|title|why): ?(.*)$/;
const KNOWN = new Set(CATEGORIES.map(c => c.id));
const utf8 = new TextEncoder();

/**
 * Reads a labelled log's header: `# expected: <category>` (required unless a TSV names it),
 * `# role: agent`, `# context: subject: …` (repeatable), up to the first other line; a lone `#`
 * ends it too. Unknown categories and roles are problems, not silent misses.
 */
export function parseLabel(head: string): LogLabel {
  const out: LogLabel = { expected: null, source: null, role: null, context: '', headerBytes: 0, headerLines: 0, problems: [] };
  const context: string[] = [];
  let offset = 0;
  for (const line of head.split('\n')) {
    const bare = line.replace(/\r$/, '');
    const next = offset + utf8.encode(line).length + 1;
    if (bare === '#') {
      offset = next;
      out.headerLines++;
      break;
    }
    const m = HEADER.exec(bare);
    if (!m) break;
    const [, key, value] = m;
    if (key === 'expected') out.expected = value.trim();
    else if (key === 'source') out.source = value.trim() || null;
    else if (key === 'role') {
      if ((ROLES as readonly string[]).includes(value.trim())) out.role = value.trim() as Role;
      else out.problems.push(`role "${value.trim()}" is not one of ${ROLES.join(', ')}`);
    } else if (key === 'context') context.push(value);
    offset = next;
    out.headerLines++;
  }
  if (out.expected && !KNOWN.has(out.expected)) out.problems.push(`expected category "${out.expected}" is not in the taxonomy`);
  out.context = context.join('\n');
  out.headerBytes = offset;
  return out;
}

export interface RuleTestCase {
  file: string;
  expected: string;
  got: string;
  cause: string | null;
  rule: string | null;
  strength: Finding['strength'];
  evidence: Evidence | null;
  /** Every finding's rule (the primary first), for "rules that never fired". */
  fired: string[];
  /** For a miss: the lines a person would look at (the unclassified candidates, or the evidence). */
  candidates: Evidence[];
  /** The log's `# source:` (cross-validation leaves one source out at a time). */
  source?: string | null;
  /** The learned stage's tokens (with features on) and its best guess where it was asked. */
  tokens?: string[];
  guess?: { category: string; p: number } | null;
}

/** Which stage answered: the rules (signature, context, generic, status), the structure, the learned fallback, or none. */
export type Stage = 'rules' | 'structure' | 'learned' | 'label' | 'none';
export function stageOf(strength: Finding['strength']): Stage {
  return strength === 'structure' || strength === 'learned' || strength === 'label' ? strength : strength === 'none' ? 'none' : 'rules';
}

export interface StageScore {
  stage: Stage;
  /** Logs this stage answered, those it answered right, and those it answered with another category. */
  answered: number;
  correct: number;
  wrong: number;
}

export interface CategoryScore {
  category: string;
  logs: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number | null;
  recall: number | null;
}

export interface RuleTestSummary {
  logs: number;
  correct: number;
  /** Logs given a category other than the expected one (an unclassified answer is a miss, not wrong). */
  wrong: number;
  stages: StageScore[];
  categories: CategoryScore[];
  misses: RuleTestCase[];
  neverFired: string[];
}

/** Per-category precision and recall (Build Failure Analyzer's "test an indication", for a whole corpus). */
export function scoreRuleTest(cases: RuleTestCase[], ruleIds: string[]): RuleTestSummary {
  const cats = new Set<string>();
  for (const c of cases) cats.add(c.expected).add(c.got);
  const categories: CategoryScore[] = [...cats].sort().map(category => {
    const tp = cases.filter(c => c.expected === category && c.got === category).length;
    const fp = cases.filter(c => c.expected !== category && c.got === category).length;
    const fn = cases.filter(c => c.expected === category && c.got !== category).length;
    const logs = cases.filter(c => c.expected === category).length;
    return {
      category,
      logs,
      truePositives: tp,
      falsePositives: fp,
      falseNegatives: fn,
      precision: tp + fp ? tp / (tp + fp) : null,
      recall: logs ? tp / logs : null,
    };
  });
  const fired = new Set(cases.flatMap(c => c.fired));
  const isWrong = (c: RuleTestCase) => c.got !== c.expected && c.got !== 'unclassified';
  const stages: StageScore[] = (['rules', 'structure', 'learned', 'label', 'none'] as const).flatMap(stage => {
    const mine = cases.filter(c => stageOf(c.strength) === stage);
    return mine.length || stage !== 'label'
      ? [{ stage, answered: mine.length, correct: mine.filter(c => c.got === c.expected).length, wrong: mine.filter(isWrong).length }]
      : [];
  });
  return {
    logs: cases.length,
    correct: cases.filter(c => c.expected === c.got).length,
    wrong: cases.filter(isWrong).length,
    stages,
    categories,
    misses: cases.filter(c => c.expected !== c.got),
    neverFired: ruleIds.filter(id => !fired.has(id)),
  };
}

/**
 * Leave-one-source-out cross-validation of the learned stage: for each source (a thread, a tool;
 * a log without one is its own), a model trained on every other source's logs answers that
 * source's logs that no rule or structure explained. `cases` come from a run with the learned
 * stage off and features on.
 */
export function crossValidate(cases: readonly RuleTestCase[], threshold: number): RuleTestCase[] {
  const group = (c: RuleTestCase) => c.source ?? `file:${c.file}`;
  const groups = new Map<string, RuleTestCase[]>();
  for (const c of cases) (groups.get(group(c)) ?? groups.set(group(c), []).get(group(c))!).push(c);
  const out = new Map<RuleTestCase, RuleTestCase>();
  for (const [g, mine] of groups) {
    const model = new NaiveBayes();
    for (const c of cases) if (group(c) !== g && c.expected !== 'unclassified' && c.tokens?.length) model.add({ category: c.expected, tokens: c.tokens });
    for (const c of mine) {
      if (c.got !== 'unclassified' || !c.tokens) continue;
      const guess = model.predict(c.tokens);
      out.set(
        c,
        guess && guess.p >= threshold
          ? { ...c, got: guess.category, strength: 'learned', rule: 'learned', guess: { category: guess.category, p: guess.p } }
          : { ...c, guess: guess ? { category: guess.category, p: guess.p } : null },
      );
    }
  }
  return cases.map(c => out.get(c) ?? c);
}

/** The learned model of a labelled corpus (its `unclassified` logs teach nothing). */
export function trainModel(cases: readonly RuleTestCase[]): NaiveBayes {
  const model = new NaiveBayes();
  for (const c of cases) if (c.expected !== 'unclassified' && c.tokens?.length) model.add({ category: c.expected, tokens: c.tokens });
  return model;
}
