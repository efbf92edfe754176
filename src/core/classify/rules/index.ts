import type { RuleSpec } from '../ruleSchema';
import { ENVIRONMENT_RULES } from './environment';
import { RESOURCES_RULES } from './resources';
import { RUNTIME_RULES } from './runtime';
import { MEASUREMENT_RULES } from './measurement';
import { DATASET_RULES } from './dataset';
import { AGENT_RULES } from './agent';
import { CONTEXT_RULES } from './context';
import { GENERIC_RULES } from './generic';

/**
 * Built-in rules, as data, one file per group of the taxonomy. Patterns are JavaScript regexes that
 * run in linear time on a line: every quantifier that can run along a line is bounded or follows a
 * literal, and every line pattern has a required literal (the prefilter, literals.ts).
 * Order breaks ties on the same line: more specific first, so the groups come in this order.
 */
export const BUILTIN_RULES: RuleSpec[] = [
  ...ENVIRONMENT_RULES,
  ...RESOURCES_RULES,
  ...RUNTIME_RULES,
  ...MEASUREMENT_RULES,
  ...DATASET_RULES,
  ...AGENT_RULES,
  ...CONTEXT_RULES,
  ...GENERIC_RULES,
];
