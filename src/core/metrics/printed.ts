import { addMetrics, emptyMetrics, type NormalisedMetrics } from './catalogue';

/**
 * Metrics from the blocks vLLM's benchmark scripts print (research §4.6): the serving result
 * block, `Throughput: … requests/s, … tokens/s` (old and new forms), `Avg latency: … seconds` and
 * the percentile lines, prefix-caching speed lines. The *last* occurrence wins, so a rerun inside
 * the same log reports its final numbers; engine log lines (`Avg prompt throughput`) are ignored.
 * `est. speed` progress lines are read only for prefix-caching runs: every offline benchmark
 * prints them while it generates, and they are not its result.
 */
const SERVING: Array<[RegExp, string]> = [
  [/^Successful requests:\s+([\d.]+)/, 'successful_requests'],
  [/^Benchmark duration \(s\):\s+([\d.]+)/, 'benchmark_duration_s'],
  [/^Total input tokens:\s+([\d.]+)/, 'total_input_tokens'],
  [/^Total generated tokens:\s+([\d.]+)/, 'total_generated_tokens'],
  [/^Request throughput \(req\/s\):\s+([\d.]+)/, 'request_throughput_req_s'],
  [/^Output token throughput \(tok\/s\):\s+([\d.]+)/, 'output_token_throughput_tok_s'],
  [/^Total [Tt]oken throughput \(tok\/s\):\s+([\d.]+)/, 'total_token_throughput_tok_s'],
  [/^Input token throughput \(tok\/s\):\s+([\d.]+)/, 'input_throughput_tok_s'],
];
/** Literals every printed-metric line contains (for literal scanners; case-insensitive). */
export const METRIC_LINE_LITERALS = [
  'Successful requests',
  'Benchmark duration',
  'Total input tokens',
  'Total generated tokens',
  'Token throughput',
  'Request throughput',
  'Input token throughput',
  'TTFT (ms)',
  'TPOT (ms)',
  'ITL (ms)',
  'E2EL (ms)',
  'E2E Latency (ms)',
  'requests/s,',
  'Avg latency:',
  '% percentile latency',
  'cost time',
  'est. speed input',
  '------warm up------',
  '------start generating------',
];
const CANDIDATE =
  /^\s*(?:Successful requests|Benchmark duration|Total (?:input|generated|[Tt]oken)|Request throughput|Output token|Input token|Mean |Median |P\d+ |Throughput:|Avg latency|\d+% percentile|cost time|------(?:warm up|start generating)------)|est\. speed input/gm;
const STAT = /^(Mean|Median|P(\d+)) (TTFT|TPOT|ITL|E2EL|E2E Latency) \(ms\):\s+([\d.]+)/;

export class PrintedMetricsParser {
  private readonly values = new Map<string, number>();

  constructor(private mode: string | null = null) {}

  line(raw: string): void {
    const l = raw.trim();
    // benchmark_prefix_caching.py announces its phases; its speed lines are then its result.
    if (/^------(?:warm up|start generating)------$/.test(l)) {
      this.mode = 'prefix_caching';
      return;
    }
    if (l.length > 300 || l.length < 8) return;
    for (const [re, key] of SERVING) {
      const m = re.exec(l);
      if (m) {
        this.values.set(key, Number(m[1]));
        return;
      }
    }
    const s = STAT.exec(l);
    if (s) {
      const base = { TTFT: 'ttft', TPOT: 'tpot', ITL: 'itl', E2EL: 'e2el', 'E2E Latency': 'e2el' }[s[3]]!;
      const stat = s[1] === 'Mean' ? 'mean' : s[1] === 'Median' ? 'median' : `p${s[2]}`;
      this.values.set(`${base}_${stat === 'p50' ? 'median' : stat}_ms`, Number(s[4]));
      return;
    }
    let m = /^Throughput:\s*([\d.]+)\s*requests\/s,\s*([\d.]+)\s*total tokens\/s,\s*([\d.]+)\s*output tokens\/s/.exec(l);
    if (m) {
      this.values.set('request_throughput_req_s', Number(m[1]));
      this.values.set('total_token_throughput_tok_s', Number(m[2]));
      this.values.set('output_token_throughput_tok_s', Number(m[3]));
      return;
    }
    m = /^Throughput:\s*([\d.]+)\s*requests\/s,\s*([\d.]+)\s*tokens\/s/.exec(l);
    if (m) {
      this.values.set('request_throughput_req_s', Number(m[1]));
      this.values.set('total_token_throughput_tok_s', Number(m[2]));
      return;
    }
    m = /^Avg latency:\s*([\d.]+)\s*(seconds|ms)/.exec(l);
    if (m) {
      this.values.set('latency_avg_ms', Number(m[1]) * (m[2] === 'seconds' ? 1000 : 1));
      return;
    }
    m = /^(\d+)% percentile latency:\s*([\d.]+)\s*(seconds|ms)/.exec(l);
    if (m) {
      const key = `latency_p${m[1]}_ms`;
      if (['50', '90', '99'].includes(m[1])) this.values.set(key, Number(m[2]) * (m[3] === 'seconds' ? 1000 : 1));
      return;
    }
    m = this.mode !== 'prefix_caching' ? null : /est\. speed input:\s*([\d.]+)\s*toks\/s,\s*output:\s*([\d.]+)\s*toks\/s/.exec(l);
    if (m) {
      this.values.set('input_throughput_tok_s', Number(m[1]));
      this.values.set('output_token_throughput_tok_s', Number(m[2]));
      return;
    }
    m = /^cost time\s+([\d.]+)/.exec(l);
    if (m) this.values.set('elapsed_time_s', Number(m[1]));
  }

  /** Many lines at once: only lines that can hold a metric are looked at (fast on huge logs). */
  chunk(text: string): void {
    CANDIDATE.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = CANDIDATE.exec(text))) {
      const start = text.lastIndexOf('\n', m.index - 1) + 1;
      const end = text.indexOf('\n', m.index);
      this.line(text.slice(start, end === -1 ? text.length : end));
      if (end === -1) break;
      CANDIDATE.lastIndex = end + 1;
    }
  }

  get found(): boolean {
    return this.values.size > 0;
  }

  result(): NormalisedMetrics {
    return addMetrics(emptyMetrics(), Object.fromEntries(this.values));
  }
}

export function parsePrintedMetrics(text: string, mode: string | null = null): NormalisedMetrics {
  const p = new PrintedMetricsParser(mode);
  p.chunk(text);
  return p.result();
}
