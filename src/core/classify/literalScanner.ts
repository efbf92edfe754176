import walkWasmBytes from './dfaWalk.wat';

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
  /** The longest literal, in bytes. */
  private readonly maxLength: number;

  /** `groups[k]` is a list of literals; a hit on any of them sets bit k in the reported mask. */
  constructor(groups: readonly (readonly string[])[]) {
    const enc = new TextEncoder();
    // Every literal's case-folded UTF-8 bytes. An empty literal would make every byte a hit (and
    // the root accepting): it holds no id's place in the automaton.
    const encoded = groups.map(lits => lits.map(lit => (lit ? enc.encode(lit).map(fold) : null)));
    // Byte classes: bytes no literal holds share class 0, each other folded byte has its own (its
    // upper case too), the newline one of its own. The automaton is built over classes, not 256
    // bytes a state: a quarter of the memory or less, for the same table.
    const used = new Uint8Array(256);
    let bytesInAll = 0;
    for (const g of encoded)
      for (const bytes of g)
        if (bytes) {
          bytesInAll += bytes.length;
          for (const b of bytes) used[b] = 1;
        }
    const cls = new Uint8Array(256);
    let classes = 1;
    for (let b = 0; b < 256; b++) if (fold(b) === b && b !== 10 && used[b]) cls[b] = classes++;
    for (let b = 0; b < 256; b++) if (fold(b) !== b) cls[b] = cls[fold(b)];
    const newline = classes++;
    cls[10] = newline;
    const shift = Math.max(1, Math.ceil(Math.log2(classes)));
    const stride = 1 << shift;
    // The trie, in a flat table over classes (a child is never the root, so 0 is "no edge"), with
    // each state's groups and the ids of the literals that end there (none for most states). Each
    // state's children are also chained (first child, next sibling), so the passes below visit
    // edges, not every class of every state: built cold, at a window's first scan, this is most of
    // the cost.
    const go = new Int32Array((bytesInAll + 1) * stride);
    const states = bytesInAll + 1;
    const firstChild = new Int32Array(states);
    const sibling = new Int32Array(states);
    const edgeClass = new Int32Array(states);
    const out: number[] = [0];
    const ids: number[][] = [NO_IDS];
    let n = 1;
    let id = 0;
    let longest = 1;
    encoded.forEach((lits, k) => {
      for (const bytes of lits) {
        if (!bytes) {
          id++;
          continue;
        }
        let st = 0;
        longest = Math.max(longest, bytes.length);
        for (const b of bytes) {
          const c = cls[b];
          let t = go[st * stride + c];
          if (t === 0) {
            t = n++;
            out.push(0);
            ids.push(NO_IDS);
            go[st * stride + c] = t;
            edgeClass[t] = c;
            sibling[t] = firstChild[st];
            firstChild[st] = t;
          }
          st = t;
        }
        out[st] |= 1 << k;
        ids[st] = [...ids[st], id++];
      }
    });
    // Breadth first, failure links along the trie's own edges; a state's groups and ids gain its
    // failure state's (shallower, so already complete).
    const fail = new Int32Array(n);
    const queue = new Int32Array(n);
    let tail = 1;
    for (let qi = 0; qi < tail; qi++) {
      const st = queue[qi];
      if (st !== 0) {
        out[st] |= out[fail[st]];
        if (ids[fail[st]].length) ids[st] = [...ids[st], ...ids[fail[st]]];
      }
      for (let t = firstChild[st]; t !== 0; t = sibling[t]) {
        const c = edgeClass[t];
        let f = st === 0 ? -1 : fail[st];
        while (f > 0 && go[f * stride + c] === 0) f = fail[f];
        fail[t] = f < 0 ? 0 : go[f * stride + c];
        queue[tail++] = t;
      }
    }
    // Then each row in the same order, in place: its failure state's finished row (shallower)
    // with its own edges over it. Class 0 (no literal's byte) and the newline stay at the root.
    // Next states are pre-multiplied and an accepting state stored as -(state + 1), so the hot
    // loop is one class load, one table load and one sign test per byte. No literal contains a
    // newline: its transition from every state is NEWLINE (the slow path counts lines, never a
    // search per line).
    const step = (t: number) => (out[t] !== 0 ? -(t + 1) : t << shift);
    const pm = go;
    for (let qi = 0; qi < tail; qi++) {
      const st = queue[qi];
      const row = st * stride;
      if (st === 0) for (let c = 0; c < newline; c++) pm[c] = step(pm[c]);
      else {
        pm.copyWithin(row, fail[st] * stride, fail[st] * stride + stride);
        for (let t = firstChild[st]; t !== 0; t = sibling[t]) pm[row + edgeClass[t]] = step(t);
      }
      pm[row + newline] = NEWLINE;
    }
    this.delta = pm.subarray(0, n * stride);
    this.out = Int32Array.from(out);
    this.ids = ids;
    this.count = id;
    this.maxLength = longest;
    this.seenOnLine = new Uint32Array(id);
    this.cls = cls;
    this.shift = shift;
  }

  /**
   * Scans `buf[from, to)`; for every line with a hit calls `onLine(lineStart, lineEnd, lineNo,
   * mask, ids)` in line order (lineEnd excludes the newline; `ids` the literals found on the line,
   * each once, valid during the call). Returns the number of newlines seen.
   */
  scanBytes(buf: Uint8Array, from: number, to: number, firstLine: number, onLine: OnHitLine): number {
    // A large piece is walked as four (or two) parts in one loop: each DFA step waits on the load
    // of the one before it, and independent walks overlap those waits (two: 1.7×, four: 1.7× more
    // on the bare loop). Each part starts after a newline; the later parts' hit lines are held
    // until the parts before them have been reported.
    const w = to - from >= 4 * INTERLEAVE_MIN && to - from <= WASM_MAX_PIECE ? this.wasmWalk() : null;
    if (w) return this.scanInModule(w, buf, from, to, firstLine, onLine);
    const cuts = this.cutsOf(buf, from, to);
    if (cuts.length === 4) return this.walkFour(buf, cuts, to, firstLine, onLine);
    // Too few newlines to cut at: a piece of very long lines (a log on one line) is walked line by line, each long one in four parts.
    if (to - from >= 4 * INTERLEAVE_MIN) return this.walkLongLines(buf, from, to, firstLine, onLine);
    if (cuts.length === 2) return this.walkTwo(buf, from, cuts[1], to, firstLine, onLine);
    return this.walk(buf, from, to, 0, firstLine, from, onLine) - firstLine;
  }

  /**
   * A piece with few newlines: its runs of short lines are walked as usual; a line of at least
   * 4 × INTERLEAVE_MIN bytes is read for its literals in four parts at once (`literalsOfSpan`).
   */
  private walkLongLines(
    buf: Uint8Array,
    from: number,
    to: number,
    firstLine: number,
    onLine: OnHitLine,
    mod?: { w: WasmWalk; base: number; clear: number },
  ): number {
    // With the piece in the module (`mod`): newlines and long spans searched there; none from `clear` on.
    const newline = mod
      ? (at: number) => {
          if (at >= mod.clear) return -1;
          const a = mod.w.exports.newline(at + mod.base, mod.clear + mod.base);
          return a < 0 ? -1 : a - mod.base;
        }
      : (at: number) => buf.indexOf(10, at);
    let line = firstLine,
      runStart = from,
      runLine = firstLine,
      at = from;
    while (at < to) {
      let end = newline(at);
      if (end === -1 || end > to) end = to;
      if (end - at >= 4 * INTERLEAVE_MIN) {
        // The short lines before it, then the long one.
        if (runStart < at) this.walk(buf, runStart, at, 0, runLine, runStart, onLine);
        const mask = mod ? this.literalsOfSpanWasm(mod.w, mod.base, at, end) : this.literalsOfSpan(buf, at, end);
        if (mask) onLine(at, end, line, mask, this.lineIds);
        runStart = end + 1;
        runLine = line + 1;
      }
      if (end < to) line++;
      at = end + 1;
    }
    if (runStart < to) this.walk(buf, runStart, to, 0, runLine, runStart, onLine);
    return line - firstLine;
  }

  /**
   * Every literal in `buf[a, b)`, a span with no newline, read as four parts in one loop: parts
   * after the first start `maxLength` bytes early, so a literal across a cut is found whole (and
   * one found twice counts once). Returns the groups' mask; the literals are left in lineIds.
   */
  private literalsOfSpan(buf: Uint8Array, a: number, b: number): number {
    const delta = this.delta,
      cls = this.cls,
      sh = this.shift;
    this.beginLine();
    const q = Math.floor((b - a) / 4);
    const lead = this.maxLength;
    const e0 = a + q,
      e1 = a + 2 * q,
      e2 = a + 3 * q;
    let i0 = a,
      i1 = Math.max(a, e0 - lead),
      i2 = Math.max(a, e1 - lead),
      i3 = Math.max(a, e2 - lead),
      s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    for (; i0 < e0 && i1 < e1 && i2 < e2 && i3 < b; i0++, i1++, i2++, i3++) {
      s0 = delta[s0 | cls[buf[i0]]];
      s1 = delta[s1 | cls[buf[i1]]];
      s2 = delta[s2 | cls[buf[i2]]];
      s3 = delta[s3 | cls[buf[i3]]];
      if ((s0 | s1 | s2 | s3) >= 0) continue;
      if (s0 < 0) s0 = this.hitState(-s0 - 1) << sh;
      if (s1 < 0) s1 = this.hitState(-s1 - 1) << sh;
      if (s2 < 0) s2 = this.hitState(-s2 - 1) << sh;
      if (s3 < 0) s3 = this.hitState(-s3 - 1) << sh;
    }
    this.spanRest(buf, i0, e0, s0);
    this.spanRest(buf, i1, e1, s1);
    this.spanRest(buf, i2, e2, s2);
    this.spanRest(buf, i3, b, s3);
    return this.lineMask;
  }

  /** One part of literalsOfSpan on its own, from pre-multiplied state `s`. */
  private spanRest(buf: Uint8Array, i: number, to: number, s: number): void {
    const delta = this.delta,
      cls = this.cls,
      sh = this.shift;
    for (; i < to; i++) {
      s = delta[s | cls[buf[i]]];
      if (s < 0) s = this.hitState(-s - 1) << sh;
    }
  }

  /** A new hit line: its literals and mask start empty. */
  private beginLine(): void {
    this.lineIds.length = 0;
    this.lineMask = 0;
    this.lineStamp = (this.lineStamp % 0xfffffffe) + 1;
  }

  /** The literals that end in (accepting) state `t` join the line's; returns `t`. */
  private hitState(t: number): number {
    this.lineMask |= this.out[t];
    const seen = this.seenOnLine,
      stamp = this.lineStamp,
      found = this.lineIds;
    for (const id of this.ids[t])
      if (seen[id] !== stamp) {
        seen[id] = stamp;
        found.push(id);
      }
    return t;
  }

  /** Where the parts of `buf[from, to)` start: `from`, then after a newline near each quarter (or half). */
  private cutsOf(buf: Uint8Array, from: number, to: number): number[] {
    const size = to - from;
    const parts = size >= 4 * INTERLEAVE_MIN ? 4 : size >= INTERLEAVE_MIN ? 2 : 1;
    const cuts = [from];
    for (let q = 1; q < parts; q++) {
      const nl = buf.indexOf(10, Math.max(from + Math.floor((size * q) / parts), cuts[cuts.length - 1]));
      if (nl === -1 || nl + 1 >= to) break;
      if (nl + 1 > cuts[cuts.length - 1]) cuts.push(nl + 1);
    }
    // Four parts need four cuts; otherwise the two-part walk from the middle one.
    if (cuts.length === 4 || cuts.length <= 2) return cuts;
    return [from, cuts[Math.floor(cuts.length / 2)]];
  }

  private walkTwo(buf: Uint8Array, from: number, mid: number, to: number, firstLine: number, onLine: OnHitLine): number {
    const delta = this.delta,
      cls = this.cls;
    const held = this.held[0];
    held.reset();
    const hold: OnHitLine = (start, end, line, mask, ids) => held.add(start, end, line, mask, ids);
    let a = 0,
      b = 0,
      i = from,
      k = mid,
      lineA = firstLine,
      lineB = 0,
      startA = from,
      startB = mid;
    for (; i < mid && k < to; i++, k++) {
      a = delta[a | cls[buf[i]]];
      b = delta[b | cls[buf[k]]];
      if ((a | b) >= 0) continue;
      if (a < 0) {
        if (a === NEWLINE) {
          lineA++;
          startA = i + 1;
        } else {
          const end = this.restOfLine(buf, i, -a - 1, mid);
          onLine(startA, end, lineA, this.lineMask, this.lineIds);
          if (end < mid) {
            lineA++;
            startA = end + 1;
          }
          i = end;
        }
        a = 0;
      }
      if (b < 0) {
        if (b === NEWLINE) {
          lineB++;
          startB = k + 1;
        } else {
          const end = this.restOfLine(buf, k, -b - 1, to);
          hold(startB, end, lineB, this.lineMask, this.lineIds);
          if (end < to) {
            lineB++;
            startB = end + 1;
          }
          k = end;
        }
        b = 0;
      }
    }
    if (i < mid) lineA = this.walk(buf, i, mid, a, lineA, startA, onLine);
    if (k < to) lineB = this.walk(buf, k, to, b, lineB, startB, hold);
    held.replay(lineA, onLine, this.lineIds);
    return lineA - firstLine + lineB;
  }

  /**
   * A large piece in WebAssembly (dfaWalk.wat): copied into the module's memory once, its cuts
   * found there, then walked as four parts (walkFourLoaded) or, with fewer newlines than that, as
   * long lines (walkLongLines, their spans and newlines searched in the module).
   */
  private scanInModule(w: WasmWalk, buf: Uint8Array, from: number, to: number, firstLine: number, onLine: OnHitLine): number {
    const base = this.loadPiece(w, buf, from, to);
    // As cutsOf; and where a search found no newline, none is left from there to the end.
    const size = to - from;
    const cuts = [from];
    let clear = to;
    for (let q = 1; q < 4; q++) {
      const start = Math.max(from + Math.floor((size * q) / 4), cuts[cuts.length - 1]);
      const at = w.exports.newline(start + base, to + base);
      if (at < 0) {
        clear = start;
        break;
      }
      if (at - base + 1 >= to) break;
      if (at - base + 1 > cuts[cuts.length - 1]) cuts.push(at - base + 1);
    }
    if (cuts.length === 4) return this.walkFourLoaded(w, base, buf, cuts, to, firstLine, onLine);
    return this.walkLongLines(buf, from, to, firstLine, onLine, { w, base, clear });
  }

  /**
   * walkFour over a piece loadPiece put in the module: each hit line the module records (with
   * every accepting state it reaches) becomes the line's literals here, reported as walkFour does.
   */
  private walkFourLoaded(w: WasmWalk, base: number, buf: Uint8Array, cuts: readonly number[], to: number, firstLine: number, onLine: OnHitLine): number {
    const parts = new Int32Array(w.memory.buffer, PARTS, 32);
    for (let q = 0; q < 4; q++) {
      parts[8 * q] = cuts[q] + base;
      parts[8 * q + 1] = (q < 3 ? cuts[q + 1] : to) + base;
      parts[8 * q + 2] = 0;
      parts[8 * q + 3] = 0;
      parts[8 * q + 4] = cuts[q] + base;
      if (q > 0) this.held[q - 1].reset();
    }
    // A line's records: its own, then one per other accepting state reached (flag 4), all from one call.
    const drain = () => {
      const rec = new Int32Array(w.memory.buffer, RECORDS_AT, (w.exports.outAt() - RECORDS_AT) >> 2);
      for (let r = 0; r < rec.length;) {
        const q = rec[r + 3] & 3;
        this.beginLine();
        let k = r;
        do {
          this.hitState(rec[k + 3] >>> 3);
          k += 4;
        } while (k < rec.length && rec[k + 3] & 4);
        if (q === 0) onLine(rec[r] - base, rec[r + 1] - base, firstLine + rec[r + 2], this.lineMask, this.lineIds);
        else this.held[q - 1].add(rec[r] - base, rec[r + 1] - base, rec[r + 2], this.lineMask, this.lineIds);
        r = k;
      }
      w.exports.drained(RECORDS_AT);
    };
    while (w.exports.walk4()) drain();
    drain();
    for (let q = 0; q < 4; q++) {
      while (w.exports.walk1(q)) drain();
      drain();
    }
    // Later parts' lines, counted from where the part before them ended.
    let line = firstLine + parts[3];
    for (let q = 1; q < 4; q++) {
      this.held[q - 1].replay(line, onLine, this.lineIds);
      line += parts[8 * q + 3];
    }
    return line - firstLine;
  }

  /** Copies `buf[from, to)` into the module's memory and readies the module for it; returns the base (a module address is a position + base). */
  private loadPiece(w: WasmWalk, buf: Uint8Array, from: number, to: number): number {
    const need = w.bytesAt + (to - from);
    if (w.memory.buffer.byteLength < need) w.memory.grow(Math.ceil((need - w.memory.buffer.byteLength) / 65536));
    new Uint8Array(w.memory.buffer).set(buf.subarray(from, to), w.bytesAt);
    new Int32Array(w.memory.buffer, w.seenAt, this.out.length).fill(0);
    w.exports.setup(w.deltaAt, this.shift, w.seenAt, RECORDS_AT, RECORDS_AT + 16 * RECORDS);
    return w.bytesAt - from;
  }

  /** literalsOfSpan in the module, over a piece loadPiece put there: the span's literals into lineIds, its groups' mask returned. */
  private literalsOfSpanWasm(w: WasmWalk, base: number, a: number, b: number): number {
    this.beginLine();
    w.exports.drained(RECORDS_AT);
    w.exports.span4(a + base, b + base, this.maxLength);
    const rec = new Int32Array(w.memory.buffer, RECORDS_AT, (w.exports.outAt() - RECORDS_AT) >> 2);
    for (let r = 0; r < rec.length; r += 4) this.hitState(rec[r + 3] >>> 3);
    w.exports.drained(RECORDS_AT);
    return this.lineMask;
  }

  /** This scanner's tables in an instance of the walk module, made once; null where WebAssembly cannot run. */
  private wasmWalk(): WasmWalk | null {
    if (this.wasm !== undefined) return this.wasm;
    const mod = walkModule();
    if (!mod) return (this.wasm = null);
    const inst = new WebAssembly.Instance(mod);
    const exports = inst.exports as unknown as WasmWalkExports;
    const memory = exports.memory;
    // Room past the records' limit for four lines that each reach every accepting state once.
    let accepting = 0;
    for (const o of this.out) if (o) accepting++;
    const seenAt = RECORDS_AT + 16 * (RECORDS + 4 * (accepting + 1));
    const deltaAt = seenAt + 4 * this.out.length;
    const bytesAt = deltaAt + 4 * this.delta.length;
    const need = bytesAt + 64 * 1024;
    if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
    new Uint8Array(memory.buffer).set(this.cls, 0);
    new Int32Array(memory.buffer, deltaAt, this.delta.length).set(this.delta);
    return (this.wasm = { exports, memory, seenAt, deltaAt, bytesAt });
  }
  private wasm: WasmWalk | null | undefined = wasmOff ? null : undefined;

  /**
   * Four parts, `cuts[0..3]` their starts and `to` the end of the last. Part 0 reports its hit
   * lines as found; parts 1–3 count their lines from 0 and hold theirs for replay in order.
   */
  private walkFour(buf: Uint8Array, cuts: readonly number[], to: number, firstLine: number, onLine: OnHitLine): number {
    const delta = this.delta,
      cls = this.cls;
    const p = this.parts;
    for (let q = 0; q < 4; q++) {
      p.pos[q] = cuts[q];
      p.end[q] = q < 3 ? cuts[q + 1] : to;
      p.line[q] = q === 0 ? firstLine : 0;
      p.start[q] = cuts[q];
      if (q > 0) this.held[q - 1].reset();
    }
    const e0 = p.end[0],
      e1 = p.end[1],
      e2 = p.end[2],
      e3 = p.end[3];
    let i0 = p.pos[0],
      i1 = p.pos[1],
      i2 = p.pos[2],
      i3 = p.pos[3],
      s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    for (; i0 < e0 && i1 < e1 && i2 < e2 && i3 < e3; i0++, i1++, i2++, i3++) {
      s0 = delta[s0 | cls[buf[i0]]];
      s1 = delta[s1 | cls[buf[i1]]];
      s2 = delta[s2 | cls[buf[i2]]];
      s3 = delta[s3 | cls[buf[i3]]];
      if ((s0 | s1 | s2 | s3) >= 0) continue;
      // Each part that hit a newline or a literal: the slow path, then its walk goes on from where it says.
      if (s0 < 0) {
        i0 = this.stepPart(buf, 0, i0, s0, onLine);
        s0 = 0;
      }
      if (s1 < 0) {
        i1 = this.stepPart(buf, 1, i1, s1, onLine);
        s1 = 0;
      }
      if (s2 < 0) {
        i2 = this.stepPart(buf, 2, i2, s2, onLine);
        s2 = 0;
      }
      if (s3 < 0) {
        i3 = this.stepPart(buf, 3, i3, s3, onLine);
        s3 = 0;
      }
    }
    const at = [i0, i1, i2, i3],
      st = [s0, s1, s2, s3];
    for (let q = 0; q < 4; q++) {
      if (at[q] < p.end[q]) p.line[q] = this.walk(buf, at[q], p.end[q], st[q], p.line[q], p.start[q], q === 0 ? onLine : this.holders[q - 1]);
    }
    // Later parts' lines, counted from where the part before them ended.
    let line = p.line[0];
    for (let q = 1; q < 4; q++) {
      this.held[q - 1].replay(line, onLine, this.lineIds);
      line += p.line[q];
    }
    return line - firstLine;
  }

  /** Part `q` of walkFour reached a newline or a hit at `i` in (negative) state `s`: counts or reports it, returns where its walk goes on from. */
  private stepPart(buf: Uint8Array, q: number, i: number, s: number, onLine: OnHitLine): number {
    const p = this.parts;
    if (s === NEWLINE) {
      p.line[q]++;
      p.start[q] = i + 1;
      return i;
    }
    const to = p.end[q];
    const end = this.restOfLine(buf, i, -s - 1, to);
    if (q === 0) onLine(p.start[q], end, p.line[q], this.lineMask, this.lineIds);
    else this.held[q - 1].add(p.start[q], end, p.line[q], this.lineMask, this.lineIds);
    if (end < to) {
      p.line[q]++;
      p.start[q] = end + 1;
    }
    return end;
  }

  /** One walk over `buf[i, to)` from state `s` (pre-multiplied) on line `line` that began at `start`; returns the line it ends on. */
  private walk(buf: Uint8Array, i: number, to: number, s: number, line: number, start: number, onLine: OnHitLine): number {
    const delta = this.delta,
      cls = this.cls;
    for (; i < to; i++) {
      s = delta[s | cls[buf[i]]];
      if (s >= 0) continue;
      if (s === NEWLINE) {
        line++;
        start = i + 1;
      } else {
        const end = this.restOfLine(buf, i, -s - 1, to);
        onLine(start, end, line, this.lineMask, this.lineIds);
        if (end < to) {
          line++;
          start = end + 1;
        }
        i = end;
      }
      s = 0;
    }
    return line;
  }

  /**
   * A hit at `i` in state `t`: the rest of the line is read for every literal it holds (into
   * lineIds and lineMask). Returns where the line ends (its newline, or `to`).
   */
  private restOfLine(buf: Uint8Array, i: number, t: number, to: number): number {
    const delta = this.delta,
      out = this.out,
      cls = this.cls,
      sh = this.shift,
      idsOf = this.ids,
      found = this.lineIds;
    let mask = out[t];
    found.length = 0;
    // Each literal once per line: a 30 MB line of one literal repeated would otherwise hold 15 M ids.
    const seen = this.seenOnLine,
      stamp = (this.lineStamp = (this.lineStamp % 0xfffffffe) + 1);
    for (const id of idsOf[t])
      if (seen[id] !== stamp) {
        seen[id] = stamp;
        found.push(id);
      }
    let j = i + 1;
    for (; j < to; j++) {
      const x = delta[(t << sh) | cls[buf[j]]];
      if (x >= 0) t = x >> sh;
      else if (x === NEWLINE) break;
      else {
        t = -x - 1;
        mask |= out[t];
        for (const id of idsOf[t])
          if (seen[id] !== stamp) {
            seen[id] = stamp;
            found.push(id);
          }
      }
    }
    this.lineMask = mask;
    return j;
  }
  /** Scratch: the literal ids and groups of the current hit line. */
  private readonly lineIds: number[] = [];
  /** Per literal, the stamp of the last hit line it was found on. */
  private seenOnLine = new Uint32Array(0);
  private lineStamp = 0;
  private lineMask = 0;
  /** The later parts' hit lines, until the parts before them are reported. */
  private readonly held = [new HeldLines(), new HeldLines(), new HeldLines()];
  private readonly holders: OnHitLine[] = this.held.map(h => (start, end, line, mask, ids) => h.add(start, end, line, mask, ids));
  /** walkFour's per-part bookkeeping (where each part is, ends, its line and the line's start). */
  private readonly parts = { pos: new Int32Array(4), end: new Int32Array(4), line: new Float64Array(4), start: new Int32Array(4) };

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
      if (x === NEWLINE) t = 0;
      else if (x < 0) {
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
  scanString(text: string, firstLine: number, onLine: (line: string, lineNo: number, mask: number, ids: readonly number[]) => void): number {
    const bytes = ENCODER.encode(text);
    return this.scanBytes(bytes, 0, bytes.length, firstLine, (start, end, line, mask, ids) =>
      onLine(DECODER.decode(bytes.subarray(start, end)), line, mask, ids),
    );
  }
}

export type OnHitLine = (start: number, end: number, line: number, mask: number, ids: readonly number[]) => void;

/** Hit lines kept for later, line numbers relative to where they were found. */
class HeldLines {
  private n = 0;
  private rows = new Int32Array(4 * 256);
  private ids: number[] = [];
  private idEnds: number[] = [];
  reset(): void {
    this.n = 0;
    this.ids.length = 0;
    this.idEnds.length = 0;
  }
  add(start: number, end: number, line: number, mask: number, ids: readonly number[]): void {
    if (4 * (this.n + 1) > this.rows.length) {
      const grown = new Int32Array(this.rows.length * 2);
      grown.set(this.rows);
      this.rows = grown;
    }
    this.rows.set([start, end, line, mask], 4 * this.n++);
    for (const id of ids) this.ids.push(id);
    this.idEnds.push(this.ids.length);
  }
  /** Reports them in order, their line numbers counted from `firstLine`; `scratch` carries each line's ids. */
  replay(firstLine: number, onLine: OnHitLine, scratch: number[]): void {
    const r = this.rows;
    for (let h = 0, from = 0; h < this.n; h++) {
      scratch.length = 0;
      for (let x = from; x < this.idEnds[h]; x++) scratch.push(this.ids[x]);
      from = this.idEnds[h];
      onLine(r[4 * h], r[4 * h + 1], firstLine + r[4 * h + 2], r[4 * h + 3], scratch);
    }
    this.reset();
  }
}

/** The walk module's exports (dfaWalk.wat). */
interface WasmWalkExports {
  memory: WebAssembly.Memory;
  setup(delta: number, shift: number, seen: number, out: number, outLimit: number): void;
  outAt(): number;
  drained(out: number): void;
  walk4(): number;
  walk1(q: number): number;
  span4(a: number, b: number, lead: number): void;
  newline(from: number, to: number): number;
}
interface WasmWalk {
  exports: WasmWalkExports;
  memory: WebAssembly.Memory;
  /** Where the per-state stamps, the transition table and the piece's bytes are in the module's memory. */
  seenAt: number;
  deltaAt: number;
  bytesAt: number;
}
/** The module's memory: classes at 0, the four parts at PARTS, the hit-line records at RECORDS_AT. */
const PARTS = 256;
const RECORDS_AT = 512;
/** Hit lines the module records before the caller reads them (16 bytes each). */
const RECORDS = 4096;
/**
 * Pieces above this are walked in JavaScript rather than copied: a module's memory never shrinks,
 * and each scanner keeps its own (a log arrives in chunks of 4 MB and a part line).
 */
const WASM_MAX_PIECE = 16 * 1024 * 1024;
let wasmOff = false;
/** Scanners made after this walk in JavaScript only (`false`) or in WebAssembly where it runs (`true`, the default): tests and benchmarks compare the two. */
export function useWasmWalk(on: boolean): void {
  wasmOff = !on;
}
let compiled: WebAssembly.Module | null | undefined;
/** The walk module, compiled once per process; null where WebAssembly is not available. */
function walkModule(): WebAssembly.Module | null {
  if (compiled === undefined)
    try {
      compiled = new WebAssembly.Module(walkWasmBytes);
    } catch {
      compiled = null;
    }
  return compiled;
}

/** Below this many bytes a piece is walked in one go (the two-walk loop pays off on large pieces). */
const INTERLEAVE_MIN = 64 * 1024;
/** The transition on a newline, from every state: back to the root, through the slow path. */
const NEWLINE = -1;
const ENCODER = new TextEncoder();
const DECODER = new TextDecoder('utf-8');

const NO_IDS: number[] = [];

function fold(b: number): number {
  return b >= 65 && b <= 90 ? b + 32 : b;
}
