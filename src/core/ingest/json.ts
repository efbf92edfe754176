/**
 * JSON parsing that reports where a document is broken. `JSON.parse` messages do not always carry
 * a position, so on failure a small validator walks the text and finds the first offending offset.
 */
export type JsonParse = { ok: true; value: unknown; notes?: string[] } | { ok: false; message: string; offset: number; line: number; column: number };

/**
 * Python's json module writes bare NaN / Infinity / -Infinity, which JSON forbids: they are read as
 * null (or, with `keepInfinity`, ±Infinity stay infinite: SGLang's `request_rate: Infinity` means
 * "all at once"), each said in a note. Only tokens outside strings are touched ("error: NaN loss"
 * stays as it is).
 */
function nonFiniteAsNull(text: string, keepInfinity: boolean): { text: string; notes: string[]; edits: Array<[number, number]> } | null {
  const parts: string[] = [];
  const notes: string[] = [];
  // [offset in the mended text just after a replacement, original − mended length so far]
  const edits: Array<[number, number]> = [];
  let mended = 0;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip a string, escapes included
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (c !== 0x4e && c !== 0x49 && c !== 0x2d) continue; // N, I, -
    const m = /^(?:NaN|-?Infinity)(?![\w.])/.exec(text.slice(i, i + 10));
    if (!m) continue;
    const before = text.slice(Math.max(0, i - 40), i).replace(/\s+$/, '');
    if (!/[:[,]$/.test(before)) continue;
    const keep = keepInfinity && m[0] !== 'NaN';
    // 1e999 is valid JSON that JSON.parse reads as Infinity.
    const by = keep ? (m[0].startsWith('-') ? '-1e999' : '1e999') : 'null';
    parts.push(text.slice(last, i), by);
    mended += i - last + by.length;
    edits.push([mended, i + m[0].length - mended]);
    if (notes.length < 20) {
      const { line, column } = lineColumn(text, i);
      notes.push(`${m[0]} at line ${line} column ${column} is not JSON; read as ${keep ? m[0] : 'null'}`);
    }
    last = i + m[0].length;
    i = last - 1;
  }
  if (!parts.length) return null;
  parts.push(text.slice(last));
  return { text: parts.join(''), notes, edits };
}

/** An offset in the mended text, in the text as written. */
function originalOffset(edits: Array<[number, number]>, at: number): number {
  let shift = 0;
  for (const [end, d] of edits) if (end <= at) shift = d;
  return at + shift;
}

export function parseJson(input: string, opts: { keepInfinity?: boolean; rejectDuplicateKeys?: boolean } = {}): JsonParse {
  // A UTF-8 byte-order mark is not part of the document.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  // A text holding Python's tokens (SGLang writes `Infinity` on every line) is mended before its
  // first parse: a JSON.parse that throws costs several parses of the same line.
  const fixedFirst = text.includes('Infinity') || text.includes('NaN') ? nonFiniteAsNull(text, !!opts.keepInfinity) : null;
  if (fixedFirst)
    try {
      return { ok: true, value: JSON.parse(fixedFirst.text), notes: fixedFirst.notes };
    } catch {
      /* reported from the original text below */
    }
  try {
    const value: unknown = JSON.parse(text);
    if (opts.rejectDuplicateKeys) {
      const dup = duplicateKey(text, value);
      if (dup) return { ok: false, message: dup.message, offset: dup.offset, ...lineColumn(text, dup.offset) };
    }
    return { ok: true, value };
  } catch {
    const fixed = fixedFirst ? null : nonFiniteAsNull(text, !!opts.keepInfinity);
    if (fixed) {
      try {
        return { ok: true, value: JSON.parse(fixed.text), notes: fixed.notes };
      } catch {
        /* report the original error */
      }
    }
    // With Python's tokens mended, the fault is the first thing JSON forbids besides them.
    const mended = fixedFirst ?? fixed;
    const inMended = mended ? locateJsonError(mended.text) : null;
    const found = inMended ? { message: inMended.message, offset: originalOffset(mended!.edits, inMended.offset) } : locateJsonError(text);
    const { line, column } = lineColumn(text, found.offset);
    return { ok: false, message: `${found.message} at line ${line} column ${column} (offset ${found.offset})`, offset: found.offset, line, column };
  }
}

/** Keys of every object in a parsed value (iterative: deep values must not overflow the stack). */
function keysIn(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      // Indexed: a for…of that runs unoptimised allocates a result object per element.
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x && typeof x === 'object') stack.push(x);
      }
      continue;
    }
    for (const k in v) {
      n++;
      const x = (v as Record<string, unknown>)[k];
      if (x && typeof x === 'object') stack.push(x);
    }
  }
  return n;
}

/** String tokens of a JSON text, each with whether a `:` follows (a key). Aligned: every match starts at an opening quote. */
// Unrolled (`[^"\\]*` runs between escapes): a 100 MB string is one step, not 100 M backtracking frames.
const STRING_TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?/g;

/**
 * The first key an object holds twice, in a text JSON.parse accepted (`value` is what it gave).
 * JSON.parse keeps the last silently, so `{"status": "error", …, "status": "success"}` would read
 * as a success. A cheap count first: the keys written in the text against the keys the value
 * holds; only when they differ is the text walked to name the key.
 */
export function duplicateKey(text: string, value?: unknown): { key: string; message: string; offset: number } | null {
  if (value !== undefined) {
    // A key's colon follows its closing quote or whitespace, so counting those colons bounds the keys
    // written from above with one native search: as many as the keys parsed rules a duplicate out
    // (`"http://…"` is not counted; `"a :b"` is, and only sends the text to the finer count below).
    const parsed = keysIn(value);
    let colons = 0;
    for (let i = text.indexOf(':'); i >= 0 && colons <= parsed; i = text.indexOf(':', i + 1)) {
      const before = text.charCodeAt(i - 1);
      if (before === 0x22 || WS(before)) colons++;
    }
    if (colons === parsed) return null;
    let written = 0;
    STRING_TOKEN.lastIndex = 0;
    for (let m = STRING_TOKEN.exec(text); m; m = STRING_TOKEN.exec(text)) if (m[1]) written++;
    if (written === parsed) return null;
  }
  const structural = /["{}[\]]/g;
  // One entry per open container: the keys seen, or null for an array.
  const stack: Array<Set<string> | null> = [];
  let m: RegExpExecArray | null;
  while ((m = structural.exec(text))) {
    const c = m[0];
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    else {
      const start = m.index;
      let end = start + 1;
      for (;;) {
        end = text.indexOf('"', end);
        let bs = 0;
        while (text.charCodeAt(end - 1 - bs) === 0x5c) bs++;
        if (bs % 2 === 0) break;
        end++;
      }
      structural.lastIndex = end + 1;
      const keys = stack[stack.length - 1];
      if (!keys) continue;
      let j = end + 1;
      while (WS(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== 0x3a) continue; // a value, not a key
      const raw = text.slice(start + 1, end);
      const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
      if (keys.has(key))
        return { key, offset: start, message: `duplicate key ${JSON.stringify(key.slice(0, 80))} (JSON keeps only the last; which one was meant is unknown)` };
      keys.add(key);
    }
  }
  return null;
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1,
    last = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return { line, column: offset - last };
}

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Iterative (no recursion: deeply nested input must not overflow the stack). */
export function locateJsonError(text: string): { message: string; offset: number } {
  let i = 0;
  const n = text.length;
  const stack: Array<'{' | '['> = [];
  const skip = () => {
    while (i < n && WS(text.charCodeAt(i))) i++;
  };
  const fail = (message: string) => ({ message, offset: Math.min(i, n) });
  const describe = () => (i >= n ? 'unexpected end of input' : `unexpected character ${JSON.stringify(text[i])}`);

  const readString = (): boolean => {
    i++; // opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return false;
        i += 2;
        continue;
      }
      if (c < 0x20) return false;
      i++;
    }
    return false;
  };
  const NUM = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

  // Parses one scalar or opens a container; returns an error or null.
  const value = (): { message: string; offset: number } | null => {
    skip();
    const c = text[i];
    if (c === '{') {
      stack.push('{');
      i++;
      skip();
      if (text[i] === '}') {
        i++;
        stack.pop();
        return closeAfterValue();
      }
      return key();
    }
    if (c === '[') {
      stack.push('[');
      i++;
      skip();
      if (text[i] === ']') {
        i++;
        stack.pop();
        return closeAfterValue();
      }
      return null;
    }
    if (c === '"') {
      if (!readString()) return fail('invalid string');
      return closeAfterValue();
    }
    for (const lit of ['true', 'false', 'null'])
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return closeAfterValue();
      }
    NUM.lastIndex = i;
    if (NUM.test(text) && NUM.lastIndex > i) {
      i = NUM.lastIndex;
      return closeAfterValue();
    }
    return fail(`expected a value, ${describe()}`);
  };
  const key = (): { message: string; offset: number } | null => {
    skip();
    if (text[i] !== '"') return fail(`expected a property name, ${describe()}`);
    if (!readString()) return fail('invalid string');
    skip();
    if (text[i] !== ':') return fail(`expected ':', ${describe()}`);
    i++;
    return null; // caller continues with value()
  };
  // After a complete value: handle separators and closers; returns error, or null to continue.
  const closeAfterValue = (): { message: string; offset: number } | null => {
    for (;;) {
      skip();
      const top = stack[stack.length - 1];
      if (!top) return i < n ? fail(`extra data after the JSON value, ${describe()}`) : null;
      const c = text[i];
      if (c === ',') {
        i++;
        if (top === '{') {
          const k = key();
          if (k) return k;
        }
        return null;
      }
      if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
        i++;
        stack.pop();
        continue;
      }
      return fail(`expected ',' or '${top === '{' ? '}' : ']'}', ${describe()}`);
    }
  };

  // Drive: every step parses one value; containers re-enter until the stack is empty.
  let err = value();
  while (!err) {
    if (stack.length === 0) break;
    err = value();
  }
  if (err) return err;
  skip();
  if (i < n) return { message: `extra data after the JSON value, ${describe()}`, offset: i };
  return { message: 'invalid JSON', offset: 0 };
}
