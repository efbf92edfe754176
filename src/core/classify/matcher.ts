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

/** A user pattern's compiled program may hold at most this many instructions (estimated). */
export const MAX_EXPANDED = 200_000;

/**
 * About how many instructions a pattern compiles to: counted repeats copy what they repeat
 * (`(a{1000}){1000}` is a million), which is what makes a short pattern take gigabytes.
 */
export function expandedSize(pattern: string): number {
  // Per open group: the size so far and the size of the last atom (what a quantifier repeats).
  const stack: Array<{ total: number; last: number }> = [{ total: 0, last: 0 }];
  const top = () => stack[stack.length - 1];
  const atom = (n: number) => {
    top().total += n;
    top().last = n;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      atom(1);
    } else if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      atom(1);
      i = j;
    } else if (c === '(') stack.push({ total: 0, last: 0 });
    else if (c === ')' && stack.length > 1) {
      const g = stack.pop()!;
      atom(g.total + 1);
    } else if (c === '{') {
      const m = /^\{(\d*)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (!m) {
        atom(1);
        continue;
      }
      const times = Math.max(Number(m[1] || 0), m[2] === undefined ? Number(m[1] || 0) : Number(m[2] || m[1] || 1), 1);
      const t = top();
      t.total += t.last * (times - 1);
      t.last *= times;
      i += m[0].length - 1;
    } else if (c === '*' || c === '+' || c === '?' || c === '|') top().total += 1;
    else atom(1);
    if (top().total > 1e12) return top().total;
  }
  while (stack.length > 1) {
    const g = stack.pop()!;
    top().total += g.total;
  }
  return top().total;
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
      // A counted repeat ({20}) of a group that itself repeats backtracks as badly as `*` does.
      const quantified = q === '+' || q === '*' || (q === '{' && /^\{\d*(,\d*)?\}/.test(pattern.slice(i + 1)) && !/^\{1\}|^\{0,1\}/.test(pattern.slice(i + 1)));
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
