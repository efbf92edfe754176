import { Classifier, type Classification } from './engine';
import { LiteralScanner } from './literalScanner';
import { METRIC_LINE_LITERALS, PrintedMetricsParser } from '../metrics/printed';

export interface LogVerdict {
  /** null when the log printed benchmark results (a success); then `metrics` holds them. */
  classification: Classification | null;
  metrics: Record<string, number>;
  lines: number;
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

  constructor(classifier: Classifier, file: string) {
    this.stream = classifier.stream({ file, field: null });
    // With user rules every line must be seen: fall back to decoding whole chunks.
    this.scanner = classifier.hasUserRules ? null : new LiteralScanner([classifier.literals, METRIC_LINE_LITERALS]);
  }

  pushBytes(buf: Uint8Array): void {
    if (!this.scanner) { this.pushText(this.decoder.decode(buf)); return; }
    const n = this.scanner.scanBytes(buf, 0, buf.length, this.line, (start, end, line, mask) => {
      const text = this.decoder.decode(buf.subarray(start, end));
      if (mask & 1 && !this.stream.settled) this.stream.line(text, line);
      if (mask & 2) this.metrics.line(text);
    });
    this.line += n;
  }

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
