import type { Truncation } from '../model';
import { isDockerPullLine, isErrorForm, isNoise } from './lines';
import { KNOWN_CAPS } from './truncation';
import { hasAnsi } from './text';

export interface Phase {
  name: string;
  startLine: number;
  endLine: number;
}
export interface Span {
  startLine: number;
  endLine: number;
  title: string;
}

export interface LogIndex {
  lineCount: number;
  phases: Phase[];
  tracebacks: Span[];
  resultBlocks: Span[];
  firstError: { line: number; text: string } | null;
  ansi: boolean;
  dockerPullLines: number;
  truncation: Truncation | null;
}

/** Runner markers that open a phase (research §4.6 "Output markers", and the extension's own). */
const PHASE_MARKERS: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^=== Running (HUMAN|BASELINE|AGENT) (.+?) benchmark(?: \(offline\))? ===/, m => `${m[1].toLowerCase()} ${m[2].toLowerCase()} benchmark`],
  [/^=== Starting vLLM server for (\w+) benchmark ===/, m => `${m[1].toLowerCase()} server`],
  [/^=== (BASELINE|HUMAN|AGENT)(?: OUTPUT)? ===\s*$/, m => `${m[1].toLowerCase()} output`],
  [/^=== AGENT BENCHMARK: (.+?) ===/, m => `agent: ${m[1]}`],
  [/^=== Running (\w+) benchmark ===/, m => `${m[1]} benchmark`],
  [/^=== bench-triage: (.+?) ===$/, m => m[1]],
  [/^(?:\w+_)?SERVER_READY_AFTER=(\S+)/, m => `benchmark (server ready after ${m[1]})`],
  [/^Server is ready after (\d+) seconds/, m => `benchmark (server ready after ${m[1]} s)`],
  [/^BENCHMARK_OUTPUT_START/, () => 'benchmark output'],
  [/^=== BENCHMARK_RESULTS_JSON ===/, () => 'results JSON'],
  [/^------warm up------/, () => 'warm-up'],
  [/^------start generating------/, () => 'generation'],
  // Image builds: the classic builder's step headers, and BuildKit's plain-progress ones.
  [/^Step (\d{1,4}\/\d{1,4}) : (.{0,80})/, m => `Step ${m[1]}: ${m[2]}`],
  [/^#\d{1,5} \[(?:[\w-]{1,40} )?(\d{1,4}\/\d{1,4})\] (.{0,80})/, m => `Step ${m[1]}: ${m[2]}`],
  [/^=== (.{3,60}) ===\s*$/, m => m[1].toLowerCase()],
];
const PHASE_END = /^(?:\w+_)?BENCHMARK_DONE\b|^BENCHMARK_OUTPUT_END|^=== END_BENCHMARK_RESULTS_JSON ===/;
const RESULT_START = /^={5,}\s*(?:Serving )?Benchmark Result\s*={5,}\s*$/;
const RESULT_END = /^={20,}\s*$/;
const TRACEBACK = /^(?:\[rank\d+\]:\s*)?(?:\S+\s+)?Traceback \(most recent call last\):/;
const EXCEPTION = /^(?:\[rank\d+\]:\s*)?([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b.*)$/;

/**
 * Streaming log indexer: feed lines in order, read the index at the end. Memory is bounded by
 * the number of phases and tracebacks, not by the log size.
 */
export class LogIndexer {
  private n = 0;
  private readonly phases: Phase[] = [];
  private readonly tracebacks: Span[] = [];
  private readonly results: Span[] = [];
  private open: Phase | null = null;
  private tb: { start: number } | null = null;
  private result: { start: number } | null = null;
  private firstError: LogIndex['firstError'] = null;
  private ansi = false;
  private pull = 0;

  line(raw: string): void {
    const no = ++this.n;
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!this.ansi && l.includes('\x1b[')) this.ansi = hasAnsi(l);
    if (isDockerPullLine(l)) {
      this.pull++;
      return;
    }
    if (l.length <= 400) {
      for (const [re, name] of PHASE_MARKERS) {
        const m = re.exec(l);
        if (m) {
          this.closePhase(no - 1);
          this.open = { name: name(m), startLine: no, endLine: no };
          break;
        }
      }
      if (this.open && PHASE_END.test(l)) this.closePhase(no);
      if (RESULT_START.test(l)) this.result = { start: no };
      else if (this.result && RESULT_END.test(l)) {
        this.results.push({ startLine: this.result.start, endLine: no, title: 'benchmark result' });
        this.result = null;
      }
    }
    if (TRACEBACK.test(l)) {
      this.tb = { start: no };
    } else if (this.tb) {
      const ex = EXCEPTION.exec(l);
      if (ex) {
        this.tracebacks.push({ startLine: this.tb.start, endLine: no, title: ex[1].slice(0, 120) });
        this.tb = null;
      } else if (no - this.tb.start > 2000) this.tb = null;
    }
    if (!this.firstError && l.trim() && isErrorForm(l) && !isNoise(l)) this.firstError = { line: no, text: l.length > 400 ? l.slice(0, 400) : l };
  }

  /** The first error line seen so far (lets a caller stop reading a huge log early). */
  get firstErrorSoFar(): LogIndex['firstError'] {
    return this.firstError;
  }

  private closePhase(end: number): void {
    if (this.open) {
      this.open.endLine = Math.max(this.open.startLine, end);
      this.phases.push(this.open);
      this.open = null;
    }
  }

  end(truncation: Truncation | null = null): LogIndex {
    this.closePhase(this.n);
    if (this.tb) this.tracebacks.push({ startLine: this.tb.start, endLine: this.n, title: 'Traceback (cut)' });
    if (this.result) this.results.push({ startLine: this.result.start, endLine: this.n, title: 'benchmark result (cut)' });
    return {
      lineCount: this.n,
      phases: this.phases,
      tracebacks: this.tracebacks,
      resultBlocks: this.results,
      firstError: this.firstError,
      ansi: this.ansi,
      dockerPullLines: this.pull,
      truncation,
    };
  }
}

export function indexLog(text: string, truncation: Truncation | null = null): LogIndex {
  const ix = new LogIndexer();
  let s = 0;
  for (;;) {
    const e = text.indexOf('\n', s);
    ix.line(e === -1 ? text.slice(s) : text.slice(s, e));
    if (e === -1) break;
    s = e + 1;
  }
  return ix.end(truncation ?? guessTruncation(text));
}

/** Without a field to say which side was kept, a length equal to a known cap is still telling. */
export function guessTruncation(text: string): Truncation | null {
  if (text.length === 3000) return { kind: 'head', cap: 3000 };
  for (const cap of KNOWN_CAPS.tail) if (text.length === cap) return { kind: 'tail', cap };
  return null;
}
