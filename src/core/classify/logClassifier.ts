import { Classifier, type Classification } from './engine';
import { LiteralScanner } from './literalScanner';
import { METRIC_LINE_LITERALS, PrintedMetricsParser } from '../metrics/printed';

export interface LogVerdict {
  /** null when the log printed benchmark results (a success); then `metrics` holds them. */
  classification: Classification | null;
  metrics: Record<string, number>;
  lines: number;
}

/** Bytes of a cut piece scanned again with the next one (longer than any literal). */
const OVERLAP = 256;

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

  constructor(classifier: Classifier, file: string) {
    this.stream = classifier.stream({ file, field: null });
    // With user rules every line must be seen: fall back to decoding whole chunks.
    this.scanner = classifier.hasUserRules ? null : new LiteralScanner([classifier.literals, METRIC_LINE_LITERALS]);
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
      const joined = new Uint8Array(this.overlap.length + input.length);
      joined.set(this.overlap);
      joined.set(input, this.overlap.length);
      buf = joined;
    }
    const n = this.scanner.scanBytes(buf, 0, buf.length, this.line, (start, end, line, mask) => {
      const text = this.decoder.decode(buf.subarray(start, end));
      if (mask & 1 && !this.stream.settled) this.stream.line(text, line);
      if (mask & 2) this.metrics.line(text);
    });
    this.line += n;
    this.overlap = buf.length && buf[buf.length - 1] !== 10 ? buf.slice(Math.max(buf.lastIndexOf(10) + 1, buf.length - OVERLAP)) : new Uint8Array(0);
  }
  private overlap = new Uint8Array(0);

  pushText(text: string): void {
    this.stream.text(text);
    this.metrics.chunk(text);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.line++;
  }

  result(): LogVerdict {
    const m = this.metrics.result().metrics;
    // A log that printed benchmark results is a success whatever warnings preceded them.
    if (Object.keys(m).length > 0) return { classification: null, metrics: m, lines: this.line - 1 };
    return { classification: this.stream.end(), metrics: {}, lines: this.line - 1 };
  }
}
