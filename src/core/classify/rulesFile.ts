import { RuleSchema, RulesFileSchema, type Rule } from './ruleSchema';
import { catastrophicReason, expandedSize, linearMatcher, MAX_EXPANDED } from './matcher';
import { BUILTIN_RULES } from './rules';
import { parseJson } from '../ingest/json';
import { isKnownCategory } from './taxonomy';

export interface RuleProblem {
  severity: 'error' | 'warning';
  /** Index in `rules`, or null for the file itself. */
  index: number | null;
  ruleId: string | null;
  /** Dotted path of the field, e.g. `rules.2.indications.0.pattern`. */
  field: string;
  message: string;
}

/**
 * Reads `.bench-triage/rules.json`. Every problem names the rule and the field; a rule with an
 * error is left out, the others still load.
 */
const BUILTIN_IDS = new Set(BUILTIN_RULES.map(r => r.id));

export function parseRulesFile(text: string): { rules: Rule[]; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const parsed = parseJson(text);
  if (!parsed.ok) return { rules: [], problems: [{ severity: 'error', index: null, ruleId: null, field: '', message: `invalid JSON: ${parsed.message}` }] };
  const file = RulesFileSchema.safeParse(parsed.value);
  if (!file.success) {
    const i = file.error.issues[0];
    return {
      rules: [],
      problems: [{ severity: 'error', index: null, ruleId: null, field: i.path.join('.'), message: `${i.message} (expected {"rules": [ … ]})` }],
    };
  }
  const rules: Rule[] = [];
  const seen = new Set<string>();
  file.data.rules.forEach((raw, index) => {
    const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : null;
    const r = RuleSchema.safeParse(raw);
    if (!r.success) {
      for (const i of r.error.issues) problems.push({ severity: 'error', index, ruleId: id, field: ['rules', index, ...i.path].join('.'), message: i.message });
      return;
    }
    const rule = r.data;
    let ok = true;
    if (seen.has(rule.id)) {
      problems.push({ severity: 'error', index, ruleId: rule.id, field: `rules.${index}.id`, message: `duplicate rule id ${rule.id}` });
      ok = false;
    }
    if (BUILTIN_IDS.has(rule.id)) {
      problems.push({
        severity: 'error',
        index,
        ruleId: rule.id,
        field: `rules.${index}.id`,
        message: `${rule.id} is a built-in rule's id; give the rule an id of its own (e.g. my.${rule.id})`,
      });
      ok = false;
    }
    seen.add(rule.id);
    if (!isKnownCategory(rule.category))
      problems.push({
        severity: 'warning',
        index,
        ruleId: rule.id,
        field: `rules.${index}.category`,
        message: `"${rule.category}" is not a built-in category; it will be shown as a category of its own`,
      });
    rule.indications.forEach((ind, k) => {
      const field = `rules.${index}.indications.${k}.pattern`;
      const size = expandedSize(ind.pattern);
      if (size > MAX_EXPANDED) {
        ok = false;
        problems.push({
          severity: 'error',
          index,
          ruleId: rule.id,
          field,
          message: `pattern expands to about ${size.toExponential(1)} instructions (counted repeats multiply); at most ${MAX_EXPANDED} are allowed`,
        });
        return;
      }
      try {
        linearMatcher(ind.pattern, ind.flags ?? '', !!ind.multiline);
      } catch (e) {
        ok = false;
        problems.push({ severity: 'error', index, ruleId: rule.id, field, message: `pattern does not compile: ${e instanceof Error ? e.message : String(e)}` });
        return;
      }
      const cat = catastrophicReason(ind.pattern);
      if (cat)
        problems.push({
          severity: 'warning',
          index,
          ruleId: rule.id,
          field,
          message: `pattern can backtrack catastrophically in a backtracking engine (${cat}); Bench Triage runs user rules with a linear-time engine and a time budget`,
        });
    });
    if (ok) rules.push(rule);
  });
  return { rules, problems };
}
