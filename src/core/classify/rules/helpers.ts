/** Short forms for writing rules as data. */
export const S = 'signature' as const,
  C = 'context' as const,
  G = 'generic' as const;
type Flags = 'i' | undefined;
const ind = (scope: 'any' | 'error' | 'context') => (pattern: string, flags?: Flags) => ({ scope, pattern, ...(flags ? { flags } : {}) });
/** A line pattern looked for in error text, kept output and logs. */
export const any = ind('any');
/** A line pattern looked for only in the pipeline's error text. */
export const err = ind('error');
/** A pattern on `command: … / model: … / subject: …`. */
export const ctx = ind('context');
