import { CATEGORIES } from './taxonomy';
import type { Evidence, Finding } from './engine';
import { ROLES, type Role } from '../model';

/** What a labelled log expects, read from its opening `# key: value` lines. */
export interface LogLabel {
  expected: string | null;
  role: Role | null;
  context: string;
  /** Bytes and lines of the header (the log itself starts after them). */
  headerBytes: number;
  headerLines: number;
  problems: string[];
}

const HEADER = /^# (expected|role|context|cause|signature|source): ?(.*)$/;
const KNOWN = new Set(CATEGORIES.map(c => c.id));
const utf8 = new TextEncoder();

/**
 * Reads a labelled log's header: `# expected: <category>` (required unless a TSV names it),
 * `# role: agent`, `# context: subject: …` (repeatable), up to the first other line; a lone `#`
 * ends it too. Unknown categories and roles are problems, not silent misses.
 */
export function parseLabel(head: string): LogLabel {
  const out: LogLabel = { expected: null, role: null, context: '', headerBytes: 0, headerLines: 0, problems: [] };
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
  return {
    logs: cases.length,
    correct: cases.filter(c => c.expected === c.got).length,
    categories,
    misses: cases.filter(c => c.expected !== c.got),
    neverFired: ruleIds.filter(id => !fired.has(id)),
  };
}
