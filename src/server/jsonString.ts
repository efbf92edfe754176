/**
 * A JSON string token in a document: its decoded value and a map from decoded index to document
 * offset, so a range found in the value (a placeholder) lands on the right characters even when
 * the raw string has escapes.
 */
export interface StringToken {
  value: string;
  start: number;
  end: number;
  at(i: number): number;
}

/** `start` is the offset of the opening quote; `raw` the token text including quotes. */
export function stringToken(raw: string, start: number): StringToken {
  const offsets: number[] = [];
  let value = '';
  let i = 1;
  while (i < raw.length - 1) {
    offsets.push(start + i);
    if (raw[i] === '\\') {
      const e = raw[i + 1];
      if (e === 'u') {
        value += String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      value += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[e] ?? e;
      i += 2;
      continue;
    }
    value += raw[i];
    i++;
  }
  offsets.push(start + raw.length - 1);
  return { value, start, end: start + raw.length, at: (k: number) => offsets[Math.min(Math.max(k, 0), offsets.length - 1)] };
}

/** Text to put inside a JSON string. */
export const jsonEscape = (s: string) => JSON.stringify(s).slice(1, -1);
