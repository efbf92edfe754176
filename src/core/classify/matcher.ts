import { RE2JS } from 're2js';

/** What a compiled pattern returns: where it matched and its capture groups. */
export interface Match {
  index: number;
  length: number;
  groups: Array<string | undefined>;
}
export interface Matcher {
  exec(text: string): Match | null;
  readonly source: string;
  readonly linear: boolean;
}

/** Built-in patterns: V8's regex engine (the patterns are written to be linear on a line). */
export function nativeMatcher(pattern: string, flags = '', multiline = false): Matcher {
  const re = new RegExp(pattern, flags + (multiline ? 'm' : ''));
  return {
    source: pattern,
    linear: false,
    exec(text) {
      const m = re.exec(text);
      return m ? { index: m.index, length: m[0].length, groups: m.slice(1) } : null;
    },
  };
}

/**
 * User patterns: RE2 semantics, linear time whatever the pattern, so a user rule can never hang the
 * editor. Throws with RE2's message when the pattern does not compile (no backreferences, no lookaround).
 */
export function linearMatcher(pattern: string, flags = '', multiline = false): Matcher {
  let f = 0;
  if (flags.includes('i')) f |= RE2JS.CASE_INSENSITIVE;
  if (multiline) f |= RE2JS.MULTILINE;
  const re = RE2JS.compile(pattern, f);
  return {
    source: pattern,
    linear: true,
    exec(text) {
      const m = re.matcher(text);
      if (!m.find()) return null;
      const groups: Array<string | undefined> = [];
      for (let g = 1; g <= m.groupCount(); g++) groups.push(m.group(g) ?? undefined);
      return { index: m.start(), length: m.end() - m.start(), groups };
    },
  };
}

/**
 * Patterns that make a backtracking engine take exponential time: a quantified group whose body
 * is itself quantified or alternates (`(a+)+`, `(a|aa)*`, `(.*)*`). Reported for user rules; RE2
 * runs them in linear time anyway.
 */
export function catastrophicReason(pattern: string): string | null {
  // Walk groups with a stack; flag a group that contains a quantifier/alternation and is quantified.
  const stack: Array<{ inner: boolean }> = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      if (stack.length && /[dwsDWS.]/.test(pattern[i] ?? '') && /[+*{]/.test(pattern[i + 1] ?? '')) stack[stack.length - 1].inner = true;
      continue;
    }
    if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) break;
      if (stack.length && /[+*{]/.test(pattern[end + 1] ?? '')) stack[stack.length - 1].inner = true;
      i = end;
      continue;
    }
    if (c === '(') {
      stack.push({ inner: false });
      continue;
    }
    if (c === ')') {
      const g = stack.pop();
      const q = pattern[i + 1];
      const quantified = q === '+' || q === '*' || (q === '{' && /^\{\d*,\d*\}/.test(pattern.slice(i + 1)) && !/^\{1\}|\{0,1\}/.test(pattern.slice(i + 1)));
      if (g?.inner && quantified) return `nested quantifier at offset ${i + 1}: "${pattern.slice(Math.max(0, i - 20), i + 2)}"`;
      if (g?.inner && stack.length) stack[stack.length - 1].inner = true;
      if (quantified && stack.length) stack[stack.length - 1].inner = true;
      continue;
    }
    if (stack.length && (c === '+' || c === '*' || c === '|' || (c === '{' && /^\{\d*,\d*\}/.test(pattern.slice(i))))) {
      const prev = pattern[i - 1];
      if (c === '|' || prev !== ')') stack[stack.length - 1].inner = true;
    }
  }
  return null;
}
