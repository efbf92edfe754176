import { constants, promises as fs } from 'node:fs';
import { kindOf, ReadRefused, sizeText } from './boundedRead';
import { LazyLines, SharedHandle } from './lazyLines';

/**
 * A JSON document whose large arrays are written one item per line: a header line (the document
 * without them, and `$sections`: each array's name and length), then each array's items in turn.
 *
 * Why: the workspace's state of 10 000 commits is 57 MB. Read whole, it is a 57 MB buffer, then a
 * 57 MB string, then parsed: on a VM where every fresh page faults at a cost, the read and the decode
 * took as long as the parse (0.6 of 1.5 s). Line by line, the bytes go through one reused buffer and
 * each line's text is short-lived.
 */
export function* jsonLines(head: Record<string, unknown>, sections: Record<string, readonly unknown[]>): Iterable<string> {
  const names = Object.keys(sections);
  yield JSON.stringify({ ...head, $sections: names.map(n => [n, sections[n].length]) });
  for (const n of names) for (const item of sections[n]) yield JSON.stringify(item);
}

/** The lines as one text (tests, hand-made documents); the store writes them through writeLinesAtomic. */
export const joinedLines = (lines: Iterable<string>) => [...lines].join('\n') + '\n';

export interface JsonLinesDocument {
  head: Record<string, unknown>;
  sections: Record<string, unknown[]>;
  /** The sections read lazily (`opts.lazy`): their lines are parsed when asked for. */
  lazy: Record<string, LazyLines<unknown>>;
}

const CHUNK = 1024 * 1024;

/**
 * Reads a document written by encodeJsonLines, bounded as readTextBounded is (no link followed, no
 * FIFO waited on, refused above `maxBytes`). Null for a file that is not one (no header, a count
 * that does not match, a line that is not JSON): the caller treats it as absent.
 */
export async function readJsonLines(
  file: string,
  opts: { maxBytes: number; what: string; lazy?: Record<string, (item: unknown) => boolean> },
): Promise<JsonLinesDocument | null> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new ReadRefused(file, `${opts.what} is a symbolic link: not followed`);
    throw e;
  }
  // Handed to the lazy sections, which close it when they are done with it.
  let kept = false;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ReadRefused(file, `${opts.what} is ${kindOf(st)}, not a regular file: not read`);
    if (st.size > opts.maxBytes) throw new ReadRefused(file, `${opts.what} is ${sizeText(st.size)}, over the ${sizeText(opts.maxBytes)} cap: not read`);
    const buf = Buffer.allocUnsafe(CHUNK);
    // Parts of a line longer than what is left of a read, joined once it ends.
    let parts: Buffer[] = [];
    let head: Record<string, unknown> | null = null;
    const sections: Record<string, unknown[]> = Object.create(null);
    let plan: Array<[string, number]> = [];
    let at = 0;
    let bad = false;
    // A lazy section's lines: where each starts and how long it is (its text is read when asked for).
    const offsets: Record<string, { starts: Float64Array; lengths: Uint32Array; n: number; firstLine: number }> = Object.create(null);
    let lineNo = 0;
    const lazyLine = (startAbs: number, length: number): boolean => {
      if (!head || at >= plan.length) return false;
      const o = offsets[plan[at][0]];
      if (!o) return false;
      if (!o.n) o.firstLine = lineNo;
      o.starts[o.n] = startAbs;
      o.lengths[o.n] = length;
      if (++o.n === plan[at][1]) at++;
      return true;
    };
    const line = (text: string) => {
      if (bad) return;
      if (!head) {
        const h: unknown = JSON.parse(text);
        const s = h && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, unknown>).$sections : undefined;
        if (!Array.isArray(s) || !s.every(x => Array.isArray(x) && typeof x[0] === 'string' && Number.isSafeInteger(x[1]) && x[1] >= 0))
          return void (bad = true);
        head = h as Record<string, unknown>;
        delete head.$sections;
        plan = (s as Array<[string, number]>).filter(([, n]) => n > 0);
        for (const [name, n] of s as Array<[string, number]>)
          if (opts.lazy?.[name]) offsets[name] = { starts: new Float64Array(n), lengths: new Uint32Array(n), n: 0, firstLine: 0 };
          else sections[name] = [];
        return;
      }
      if (at >= plan.length) return void (bad = true);
      const list = sections[plan[at][0]];
      list.push(JSON.parse(text));
      if (list.length === plan[at][1]) at++;
    };
    let pos = 0;
    // Where the line being read started in the file, and how many of its bytes came in earlier reads.
    let lineStart = 0,
      carried = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
      if (!bytesRead) break;
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < bytesRead; nl = buf.indexOf(10, nl + 1)) {
        lineNo++;
        if (lazyLine(lineStart, carried + nl - start)) parts = [];
        else if (parts.length) {
          parts.push(Buffer.from(buf.subarray(start, nl)));
          line(Buffer.concat(parts).toString('utf8'));
          parts = [];
        } else line(buf.toString('utf8', start, nl));
        start = nl + 1;
        lineStart = pos + start;
        carried = 0;
      }
      if (bad) return null;
      if (start < bytesRead) {
        // A lazy line's bytes are not kept: only its length counts.
        if (!(head && at < plan.length && offsets[plan[at][0]])) parts.push(Buffer.from(buf.subarray(start, bytesRead)));
        carried += bytesRead - start;
      }
      pos += bytesRead;
      if (pos >= st.size) break;
    }
    if (carried) {
      lineNo++;
      if (!lazyLine(lineStart, carried)) line(Buffer.concat(parts).toString('utf8'));
    }
    if (bad || !head || at !== plan.length) return null;
    const lazyNames = Object.keys(offsets);
    if (!lazyNames.length) return { head, sections, lazy: {} };
    const shared = new SharedHandle(fh, file);
    const lazy: Record<string, LazyLines<unknown>> = Object.create(null);
    shared.take(); // held while the sections are made: one without lines must not close the handle for the others
    for (const name of lazyNames) {
      const o = offsets[name];
      const check = opts.lazy![name];
      lazy[name] = new LazyLines(shared, o.starts, o.lengths, o.firstLine, (v: unknown): v is unknown => check(v), `${opts.what}'s ${name}`);
    }
    kept = true;
    shared.release();
    return { head, sections, lazy };
  } catch (e) {
    if (e instanceof ReadRefused) throw e;
    return null;
  } finally {
    if (!kept) await fh.close();
  }
}
