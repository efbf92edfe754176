import { z } from 'zod';
import { FIXABILITIES } from './taxonomy';
import { ROLES } from '../model';

/**
 * A rule, as Jenkins' Build Failure Analyzer models them: a category and cause, a description
 * with capture placeholders ({1}, {2} …), and indications — regexes scoped to the error text,
 * the kept output/logs, or the context (perf command, model, subject).
 *
 * strength: `signature` = a root cause (wins over everything else, earliest error-form line first);
 * `context` = inferred from the command/model when no signature is found; `generic` = the
 * pipelines' summary error strings, used only when nothing better is known.
 */
/** Bounds on user rules, each refused with its number (a 5 MB pattern or 100 000 rules must not stall the editor). */
export const MAX_RULES = 10_000;
/** A rules file larger than this is not read (10 000 rules of a few hundred bytes fit). */
export const MAX_RULES_BYTES = 16 * 1024 * 1024;
export const MAX_PATTERN_CHARS = 4096;
export const MAX_INDICATIONS = 64;

export const IndicationSchema = z
  .object({
    scope: z.enum(['error', 'output', 'any', 'context']),
    pattern: z
      .string()
      .min(1)
      .max(MAX_PATTERN_CHARS, { error: i => `pattern is ${(i.input as string).length} characters; at most ${MAX_PATTERN_CHARS} are allowed` }),
    flags: z.string().regex(/^i?$/, 'only the flag "i" is supported').optional(),
    multiline: z.boolean().optional(),
  })
  .strict();

export const RuleSchema = z
  .object({
    id: z
      .string()
      .max(128)
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" and "-"'),
    category: z.string().min(1),
    cause: z.string().min(1).optional(),
    fixability: z.enum(FIXABILITIES).optional(),
    description: z.string().min(1),
    strength: z.enum(['signature', 'context', 'generic']).default('signature'),
    roles: z.array(z.enum(ROLES)).min(1).optional(),
    indications: z
      .array(IndicationSchema)
      .min(1)
      .max(MAX_INDICATIONS, { error: i => `${(i.input as unknown[]).length} indications; at most ${MAX_INDICATIONS} are allowed` }),
  })
  .strict();
export type RuleSpec = z.input<typeof RuleSchema>;
export type Rule = z.output<typeof RuleSchema>;

export const RulesFileSchema = z
  .object({
    $schema: z.string().optional(),
    rules: z.array(z.unknown()).max(MAX_RULES, { error: i => `${(i.input as unknown[]).length} rules; at most ${MAX_RULES} are allowed` }),
  })
  .strict();
