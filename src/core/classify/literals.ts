/**
 * Required literals of a regex: strings of which at least one must occur in any match. The
 * classifier's prefilter is an alternation of these literals — V8 scans such an alternation at
 * hundreds of MB/s, while patterns that begin with classes or `\S*` crawl. Only what the
 * built-in rules use is understood; anything else just ends a literal run.
 */
type Item = { lit: string } | { alts: Item[][] } | { brk: true };

function parse(src: string, i: number, stopAtParen: boolean): { alts: Item[][]; end: number } {
  const alts: Item[][] = [[]];
  let cur = alts[0];
  while (i < src.length) {
    const c = src[i];
    if (c === ')' && stopAtParen) return { alts, end: i + 1 };
    if (c === '|') {
      cur = [];
      alts.push(cur);
      i++;
      continue;
    }
    let atom: Item;
    if (c === '(') {
      let j = i + 1,
        look = false;
      if (src[j] === '?') {
        if (src[j + 1] === ':') j += 2;
        else if (src[j + 1] === '<' && src[j + 2] !== '=' && src[j + 2] !== '!')
          j = src.indexOf('>', j) + 1; // named group
        else {
          look = true;
          j += 2;
          if (src[j - 1] === '<') j++;
        }
      }
      const inner = parse(src, j, true);
      i = inner.end;
      atom = look ? { brk: true } : { alts: inner.alts };
    } else if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      // A small class of plain characters (`[01]`, `[45]`) is a choice of literals: `HTTP/1\.[01]" 4`
      // then needs `http/1.0" 4` or `http/1.1" 4`, not every line holding `http/1.`.
      const body = src.slice(i + 1, j);
      i = j + 1;
      atom = /^[A-Za-z0-9_ "':,=/]{1,4}$/.test(body) ? { alts: [...new Set(body)].map(ch => [{ lit: ch }]) } : { brk: true };
    } else if (c === '\\') {
      const e = src[i + 1];
      i += 2;
      if (e === 'x') {
        atom = { lit: String.fromCharCode(parseInt(src.slice(i, i + 2), 16)) };
        i += 2;
      } else if (/[dDwWsSbBnrtfv0-9]/.test(e)) atom = { brk: true };
      else atom = { lit: e };
    } else if (c === '.' || c === '^' || c === '$') {
      i++;
      atom = { brk: true };
    } else {
      i++;
      atom = { lit: c };
    }
    // Quantifiers: optional atoms vanish; repeated ones keep one copy and end the run after it.
    const q = src[i];
    if (q === '?' || q === '*') {
      i++;
      if (src[i] === '?') i++;
      cur.push({ brk: true });
      continue;
    }
    if (q === '{') {
      const m = /^\{(\d*)(,?)(\d*)\}/.exec(src.slice(i));
      if (m) {
        i += m[0].length;
        if (src[i] === '?') i++;
        if (!m[1] || m[1] === '0') {
          cur.push({ brk: true });
          continue;
        }
        cur.push(atom, { brk: true });
        continue;
      }
    }
    if (q === '+') {
      i++;
      if (src[i] === '?') i++;
      cur.push(atom, { brk: true });
      continue;
    }
    cur.push(atom);
  }
  return { alts, end: i };
}

/** Literal runs carried across a choice of literals at most this many at once (`a(b|c)d` is `abd`, `acd`). */
const MAX_RUNS = 16;

/** The literal strings of a group each of whose alternatives is plain literals, or null. */
function literalChoices(it: { alts: Item[][] }): string[] | null {
  const out: string[] = [];
  for (const alt of it.alts) {
    if (!alt.length || !alt.every(x => 'lit' in x)) return null;
    out.push(alt.map(x => (x as { lit: string }).lit).join(''));
  }
  return out;
}

/**
 * Best literal set of a sequence: each candidate is a list of alternatives; the best has the
 * longest shortest member. A run of literals goes on through a choice of plain literals (as the
 * choice's strings, each with the run before it), so a pattern's longest required strings are found.
 */
function bestOfSeq(items: Item[]): string[] | null {
  const cands: string[][] = [];
  let runs: string[] = [''];
  const flush = () => {
    if (runs.every(r => r.length)) cands.push(runs);
    runs = [''];
  };
  for (const it of items) {
    if ('lit' in it) {
      runs = runs.map(r => r + it.lit);
      continue;
    }
    if ('brk' in it) {
      flush();
      continue;
    }
    const choices = literalChoices(it);
    if (choices && runs.length * choices.length <= MAX_RUNS) {
      runs = runs.flatMap(r => choices.map(c => r + c));
      continue;
    }
    flush();
    if (it.alts.length === 1) {
      const b = bestOfSeq(it.alts[0]);
      if (b) cands.push(b);
      continue;
    }
    const perAlt = it.alts.map(bestOfSeq);
    if (perAlt.every((x): x is string[] => !!x)) cands.push(perAlt.flat());
  }
  flush();
  const score = (c: string[]) => Math.min(...c.map(s => s.length));
  return cands.length ? cands.sort((a, b) => score(b) - score(a))[0] : null;
}

export function requiredLiterals(pattern: string): string[] | null {
  const { alts } = parse(pattern, 0, false);
  const perAlt = alts.map(bestOfSeq);
  if (!perAlt.every((x): x is string[] => !!x)) return null;
  return [...new Set(perAlt.flat())];
}
