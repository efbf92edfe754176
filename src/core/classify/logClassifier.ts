import { Classifier, type Classification } from './engine';
import type { Role } from '../model';
import { LiteralScanner } from './literalScanner';
import { METRIC_LINE_LITERALS, PrintedMetricsParser } from '../metrics/printed';
import { STRUCTURE_LITERALS } from './structure/reader';

export interface LogVerdict {
  /** null when the log printed benchmark results (a success); then `metrics` holds them. */
  classification: Classification | null;
  metrics: Record<string, number>;
  lines: number;
}

/** Bytes of a cut piece scanned again with the next one (longer than any literal). */
const OVERLAP = 256;
/** Where the part line at the end of a piece that does not end with a newline starts, at most OVERLAP bytes back (searched there only). */
function overlapStart(buf: Uint8Array): number {
  const from = Math.max(0, buf.length - OVERLAP);
  const nl = buf.subarray(from).lastIndexOf(10);
  return nl === -1 ? from : from + nl + 1;
}

/** Words of lines that may state an error: kept (the last few) for a log no rule explains. */
const ERROR_LINE_LITERALS = [
  'error',
  'traceback',
  'failed',
  'exception',
  'fatal',
  'killed',
  'not found',
  'cannot',
  'could not',
  'timed out',
  'timeout',
  'denied',
  'errno',
  'unknown',
];

/** One literal automaton per classifier: building it costs far more than scanning a small log. */
const SCANNERS = new WeakMap<Classifier, LiteralScanner>();
function scannerFor(classifier: Classifier): LiteralScanner {
  let s = SCANNERS.get(classifier);
  if (!s) SCANNERS.set(classifier, (s = new LiteralScanner([classifier.literals, METRIC_LINE_LITERALS, ERROR_LINE_LITERALS, STRUCTURE_LITERALS])));
  return s;
}

export interface LogContext {
  /** The role that produced the log: agent-only rules apply to agent logs. */
  role?: Role | null;
  /** `command: …\nmodel: …\nsubject: …` for context rules. */
  context?: string;
  /** Number of the first line fed (a labelled file's header is skipped, its lines still count). */
  firstLine?: number;
}

/**
 * Classifies one plain log fed as byte chunks that end on line boundaries. One literal scan finds
 * both rule candidates and metric lines; only those lines are decoded. Memory stays bounded by
 * the chunk size whatever the log size.
 */
export class LogClassifier {
  private readonly stream;
  private readonly metrics = new PrintedMetricsParser();
  private readonly scanner: LiteralScanner | null;
  private readonly decoder = new TextDecoder('utf-8');
  private line = 1;

  private readonly context: string;

  constructor(classifier: Classifier, file: string, opts: LogContext = {}) {
    this.line = opts.firstLine ?? 1;
    this.stream = classifier.stream({ file, field: null }, opts.role ?? null, this.line);
    this.context = opts.context ?? '';
    // With user rules every line must be seen: fall back to decoding whole chunks.
    this.scanner = classifier.hasUserRules ? null : scannerFor(classifier);
  }

  /**
   * Bytes of the log. A chunk that does not end with a newline continues in the next one (a very
   * long line comes in pieces): its last bytes are scanned again with the next piece so that a
   * literal across the cut is still found.
   */
  pushBytes(input: Uint8Array): void {
    if (!this.scanner) {
      this.pushText(this.decoder.decode(input, { stream: true }));
      return;
    }
    let buf = input;
    if (this.overlap.length) {
      // Joined in a buffer kept for it: a fresh one per piece of a long line cost its page faults each time.
      const need = this.overlap.length + input.length;
      if (this.joined.length < need) this.joined = new Uint8Array(need);
      this.joined.set(this.overlap);
      this.joined.set(input, this.overlap.length);
      buf = this.joined.subarray(0, need);
    }
    const n = this.scanner.scanBytes(buf, 0, buf.length, this.line, (start, end, line, mask, ids) => {
      const text = this.decoder.decode(buf.subarray(start, end));
      if (mask & 1 && !this.stream.settled) this.stream.line(text, line, ids);
      if (mask & 2) this.metrics.line(text);
      if (mask & 4) this.stream.errorLine(text, line);
      if (mask & 8) this.stream.structureLine(text, line);
    });
    this.line += n;
    this.overlap = buf.length && buf[buf.length - 1] !== 10 ? buf.slice(overlapStart(buf)) : new Uint8Array(0);
  }
  private overlap = new Uint8Array(0);
  private joined = new Uint8Array(0);

  pushText(text: string): void {
    this.stream.text(text);
    this.metrics.chunk(text);
    for (let s = 0, i = text.indexOf('\n'); ; s = i + 1, i = text.indexOf('\n', s)) {
      const end = i === -1 ? text.length : i;
      if (end > s) {
        const line = text.slice(s, Math.min(end, s + 8192));
        this.stream.errorLine(line.slice(0, 4096), this.line);
        this.stream.structureLine(line, this.line);
      }
      if (i === -1) break;
      this.line++;
    }
  }

  result(): LogVerdict {
    const m = this.metrics.result().metrics;
    // A log that printed benchmark results is a success whatever warnings preceded them, unless
    // not one request succeeded (the block then holds only zeros, not a measurement).
    const values = Object.values(m);
    if (values.length > 0 && values.some(v => v !== 0)) return { classification: null, metrics: m, lines: this.line - 1 };
    return { classification: this.stream.end('failed', this.context), metrics: {}, lines: this.line - 1 };
  }
}
