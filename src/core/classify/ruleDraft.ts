import { category } from './taxonomy';

/**
 * A user rule drafted from a line a person selected in a log: the line's own words as an escaped
 * literal, without the parts that change from run to run (process prefixes, levels, timestamps,
 * source locations), so that the next run's same failure matches too.
 */
export interface RuleDraft {
  id: string;
  category: string;
  description: string;
  indications: Array<{ scope: 'any' | 'error' | 'output'; pattern: string }>;
}

/** Longest literal kept from a selection (a rule is a signature, not a paragraph). */
const MAX_LITERAL = 200;

// `(EngineCore_0 pid=3112) `, `[rank1]: `, `(VllmWorker rank=1 pid=9) `, then `ERROR 11-02 14:04:31 [core.py:586] `
// or `ERROR 10-14 01:39:49 multiproc_worker_utils.py:226] `, or a bracketed ISO time `[2025-05-02 09:11:40 TP0] `.
const VOLATILE_PREFIX =
  /^\s{0,40}(?:\[rank\d{1,4}\]:\s{0,4})?(?:\(\w{1,40}(?: rank=\d{1,4})? pid=\d{1,10}\)\s{0,4})?(?:\[[\d-]{8,10}[ T][\d:.]{8,15}(?: [A-Z]{2,3}\d{1,3})*\]\s{0,4})?(?:(?:ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL)\s{1,8}(?:\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\s{1,4})?(?:\[?[\w./-]{1,120}:\d{1,6}\]\s{0,4})?)?/;

/** The text a rule should look for: the first non-empty selected line, without its volatile prefix. */
export function literalOf(selection: string): string {
  const line = selection.split(/\r?\n/).find(l => l.trim()) ?? '';
  const rest = line.replace(VOLATILE_PREFIX, '').trim();
  return (rest || line.trim()).slice(0, MAX_LITERAL);
}

/** `text` as a regex that matches exactly it (for RE2 and JavaScript alike). */
export const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The draft for `selection`, with an id not yet taken among `existingIds`. */
export function draftRule(selection: string, categoryId: string, scope: 'any' | 'error' | 'output', existingIds: readonly string[]): RuleDraft {
  const literal = literalOf(selection);
  if (!literal) throw new Error('the selection holds no text to match');
  const base = `user.${categoryId}`;
  let n = 1;
  while (existingIds.includes(`${base}.${n}`)) n++;
  return {
    id: `${base}.${n}`,
    category: categoryId,
    description: `${category(categoryId).title}: {1}`,
    indications: [{ scope, pattern: `(${escapeRegex(literal)})` }],
  };
}
