import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/**
 * The open file a document's lazy sections read from. It stays open while any of them has lines
 * not yet parsed, and closes when the last is whole or unreachable: an atomic replacement of the
 * file (a later save) never changes what an open handle reads.
 */
export class SharedHandle {
  private users = 0;
  private closed = false;
  constructor(
    readonly handle: FileHandle,
    readonly file: string,
  ) {}
  take(): void {
    this.users++;
  }
  release(): void {
    if (--this.users <= 0 && !this.closed) {
      this.closed = true;
      void this.handle.close().catch(() => undefined);
    }
  }
}

/** Unreachable sections let their handle go (the held value is the handle, never the section). */
const unreachable = new FinalizationRegistry<SharedHandle>(h => h.release());

/** A line of a lazy section that is not what was written: the cache is damaged. */
export class LazyLineError extends Error {}

const CHUNK = 1024 * 1024;
/** Lines read one at a time before the rest are read together. */
const SINGLES = 1024;

/**
 * One section of a JSON-lines document whose lines are parsed when first asked for: `at(i)` reads
 * and parses line i alone, `all()` every line not yet parsed, in large sequential reads.
 *
 * Why: on a VM where every fresh page faults at a cost, parsing all 48 000 run and classification
 * lines of a 10 000-commit state costs most of a warm reopen, and the first paint of the Commits
 * tree needs none of them. Each parsed line is kept, so `at(i)` and `all()` give the same objects.
 */
export class LazyLines<T> {
  private readonly items: Array<T | undefined>;
  private left: number;
  private singles = 0;
  /** Lines before this one are all parsed (where `readSome` goes on from). */
  private next = 0;
  constructor(
    private readonly shared: SharedHandle,
    /** Byte offset of each line's start, and its length (without the newline). */
    private readonly starts: Float64Array,
    private readonly lengths: Uint32Array,
    /** Line number of the first line in the file (1-based), for errors. */
    private readonly firstLine: number,
    private readonly check: (v: unknown) => v is T,
    private readonly what: string,
  ) {
    this.items = new Array(starts.length);
    this.left = starts.length;
    if (this.left) {
      shared.take();
      unreachable.register(this, shared, this);
    }
  }

  get length(): number {
    return this.starts.length;
  }
  /** How many lines have been parsed (the tests and the benchmark watch it). */
  get parsed(): number {
    return this.starts.length - this.left;
  }

  at(i: number): T {
    const got = this.items[i];
    if (got !== undefined) return got;
    if (!(i >= 0 && i < this.starts.length)) throw new RangeError(`${this.what}: no line ${i}`);
    // Someone is reading most of them (a filter, a grouping by fixability): one at a time costs a
    // read each, so the rest are read together.
    if (++this.singles > SINGLES) return this.all()[i];
    const buf = Buffer.allocUnsafe(this.lengths[i]);
    this.read(buf, this.lengths[i], this.starts[i]);
    return this.keep(i, buf, 0, this.lengths[i]);
  }

  all(): T[] {
    this.readSome(Infinity);
    return this.items as T[];
  }

  /** Whether every line has been parsed. */
  get whole(): boolean {
    return this.left === 0;
  }

  /** Parses up to `n` lines not yet parsed, in order (a caller reading a section in slices, yielding between them). */
  readSome(n: number): void {
    let buf: Buffer | null = null;
    for (let i = this.next; i < this.starts.length && this.left && n > 0;) {
      if (this.items[i] !== undefined) {
        i++;
        continue;
      }
      // Consecutive lines not yet parsed, as many as fit in one read (at least one).
      let j = i + 1;
      const from = this.starts[i];
      while (j < this.starts.length && j - i < n && this.items[j] === undefined && this.starts[j] + this.lengths[j] - from <= CHUNK) j++;
      const span = this.starts[j - 1] + this.lengths[j - 1] - from;
      if (!buf || buf.length < span) buf = Buffer.allocUnsafe(Math.max(span, CHUNK));
      this.read(buf, span, from);
      for (let k = i; k < j; k++) this.keep(k, buf, this.starts[k] - from, this.starts[k] - from + this.lengths[k]);
      n -= j - i;
      i = j;
      this.next = i;
    }
  }

  private read(buf: Buffer, n: number, at: number): void {
    for (let got = 0; got < n;) {
      const r = readSync(this.shared.handle.fd, buf, got, n - got, at + got);
      if (!r)
        throw new LazyLineError(
          `${this.shared.file}: ${this.what} ends early (line ${this.firstLine}…): the cache is damaged; reopen the folder to rebuild it`,
        );
      got += r;
    }
  }

  private keep(i: number, buf: Buffer, from: number, to: number): T {
    let v: unknown;
    try {
      v = JSON.parse(buf.toString('utf8', from, to));
    } catch {
      v = undefined;
    }
    if (v === undefined || !this.check(v))
      throw new LazyLineError(
        `${this.shared.file}: line ${this.firstLine + i} (${this.what}) is not what was written: the cache is damaged; reopen the folder to rebuild it`,
      );
    this.items[i] = v;
    if (--this.left === 0) {
      unreachable.unregister(this);
      this.shared.release();
    }
    return v;
  }
}
