/**
 * Multi-literal search (Aho–Corasick, compiled to a byte DFA, ASCII case-folded). It walks bytes
 * or a string once, counts lines as it goes, and reports each line that contains at least one
 * literal, with a bit mask of the literal groups found. Literals never span lines.
 */
export class LiteralScanner {
  private readonly delta: Int32Array;
  private readonly out: Int32Array;
  /** Byte → class: bytes that occur in no literal share class 0, which keeps the table small (cache). */
  private readonly cls: Uint8Array;
  private readonly shift: number;
  /** Per state, the ids of the literals that end there (their order across the groups: 0, 1, …). */
  private readonly ids: number[][];
  /** How many literals there are. */
  readonly count: number;

  /** `groups[k]` is a list of literals; a hit on any of them sets bit k in the reported mask. */
  constructor(groups: readonly (readonly string[])[]) {
    // Trie over case-folded UTF-8 bytes.
    const next: Array<Map<number, number>> = [new Map()];
    const out: number[] = [0];
    const ids: number[][] = [[]];
    const enc = new TextEncoder();
    let id = 0;
    groups.forEach((lits, k) => {
      for (const lit of lits) {
        let s = 0;
        for (const raw of enc.encode(lit)) {
          const b = fold(raw);
          let t = next[s].get(b);
          if (t === undefined) {
            t = next.length;
            next.push(new Map());
            out.push(0);
            ids.push([]);
            next[s].set(b, t);
          }
          s = t;
        }
        out[s] |= 1 << k;
        ids[s].push(id++);
      }
    });
    const n = next.length;
    const delta = new Int32Array(n * 256);
    const fail = new Int32Array(n);
    const queue: number[] = [];
    for (let b = 0; b < 256; b++) {
      const t = next[0].get(fold(b));
      delta[b] = t ?? 0;
      if (t !== undefined && b === fold(b)) {
        fail[t] = 0;
        queue.push(t);
      }
    }
    for (let qi = 0; qi < queue.length; qi++) {
      const s = queue[qi];
      out[s] |= out[fail[s]];
      if (ids[fail[s]].length) ids[s] = [...ids[s], ...ids[fail[s]]];
      for (let b = 0; b < 256; b++) {
        const t = next[s].get(fold(b));
        if (t !== undefined) {
          if (b === fold(b)) {
            fail[t] = delta[fail[s] * 256 + b];
            queue.push(t);
          }
          delta[s * 256 + b] = t;
        } else delta[s * 256 + b] = delta[fail[s] * 256 + b];
      }
    }
    // Byte classes, then pre-multiplied next states; an accepting state is stored as -(state + 1)
    // so the hot loop is one class load, one table load and one sign test per byte. No literal
    // contains a newline, so every state goes back to the root on '\n' by construction.
    const cls = new Uint8Array(256);
    let classes = 1;
    const rep: number[] = [0];
    for (let b = 0; b < 256; b++) {
      const f = fold(b);
      if (f !== b) continue;
      let used = false;
      for (let st = 0; st < n && !used; st++) used = next[st].has(f);
      if (used) {
        cls[b] = classes;
        rep.push(b);
        classes++;
      }
    }
    for (let b = 0; b < 256; b++) if (fold(b) !== b) cls[b] = cls[fold(b)];
    const shift = Math.max(1, Math.ceil(Math.log2(classes)));
    const stride = 1 << shift;
    const pm = new Int32Array(n * stride);
    // Class 0 stands for every byte in no literal: its transition is the one of a byte outside all literals (e.g. 0).
    for (let st = 0; st < n; st++)
      for (let c = 0; c < classes; c++) {
        const t = delta[st * 256 + rep[c]];
        pm[st * stride + c] = out[t] !== 0 ? -(t + 1) : t << shift;
      }
    this.delta = pm;
    this.out = Int32Array.from(out);
    this.ids = ids;
    this.count = id;
    this.cls = cls;
    this.shift = shift;
  }

  /**
   * Scans `buf[from, to)`; for every line with a hit calls `onLine(lineStart, lineEnd, lineNo, mask)`
   * (lineEnd excludes the newline). Returns the number of newlines seen.
   */
  scanBytes(buf: Uint8Array, from: number, to: number, firstLine: number, onLine: (start: number, end: number, line: number, mask: number) => void): number {
    const delta = this.delta,
      out = this.out,
      cls = this.cls,
      sh = this.shift;
    let s = 0,
      line = firstLine,
      counted = from;
    for (let i = from; i < to; i++) {
      s = delta[s | cls[buf[i]]];
      if (s >= 0) continue;
      let mask = out[-s - 1];
      // Line number: count newlines since the last hit (native search).
      for (let k = buf.indexOf(10, counted); k !== -1 && k < i; k = buf.indexOf(10, k + 1)) line++;
      const start = buf.lastIndexOf(10, i) + 1;
      let end = buf.indexOf(10, i);
      if (end === -1 || end > to) end = to;
      let t = -s - 1;
      for (let j = i + 1; j < end; j++) {
        const x = delta[(t << sh) | cls[buf[j]]];
        t = x < 0 ? -x - 1 : x >> sh;
        mask |= out[t];
      }
      onLine(Math.max(start, from), end, line, mask);
      counted = end;
      i = end - 1;
      s = 0;
    }
    for (let k = buf.indexOf(10, counted); k !== -1 && k < to; k = buf.indexOf(10, k + 1)) line++;
    return line - firstLine;
  }

  /**
   * Which literals one line holds: `found[id]` is set to `stamp` for each, and each id is pushed
   * to `list` once (a caller reuses one array across lines with a new stamp each time, so nothing
   * is cleared).
   */
  literalsIn(line: string, found: Uint32Array, stamp: number, list: number[]): void {
    const delta = this.delta,
      cls = this.cls,
      sh = this.shift,
      ids = this.ids;
    const bytes = ENCODER.encode(line);
    let t = 0;
    for (let j = 0; j < bytes.length; j++) {
      const x = delta[(t << sh) | cls[bytes[j]]];
      if (x < 0) {
        t = -x - 1;
        for (const id of ids[t])
          if (found[id] !== stamp) {
            found[id] = stamp;
            list.push(id);
          }
      } else t = x >> sh;
    }
  }

  /**
   * The same over a string: it is scanned as UTF-8 bytes (a charCodeAt loop over long strings
   * falls into a V8 tier-up pathology that makes it quadratic), and each hit line is handed over
   * as text. Returns the number of newlines seen.
   */
  scanString(text: string, firstLine: number, onLine: (line: string, lineNo: number, mask: number) => void): number {
    const bytes = ENCODER.encode(text);
    return this.scanBytes(bytes, 0, bytes.length, firstLine, (start, end, line, mask) => onLine(DECODER.decode(bytes.subarray(start, end)), line, mask));
  }
}

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder('utf-8');

function fold(b: number): number {
  return b >= 65 && b <= 90 ? b + 32 : b;
}
