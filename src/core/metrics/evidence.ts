import { metricDef, unitFamily, type MetricField } from './catalogue';
import { SourceList } from './sharedSources';

/**
 * Units from evidence. A result file's field name is only a claim: pipelines stored requests/s
 * under `throughput_tok_s` (6ce01f30), an arbitrary "throughput" under `throughput`, or a
 * regex's first match under `output_token_throughput_tok_s` (research §4.6 E). The benchmark's
 * own printed block, or the run's counts (tokens and requests over its duration), say what a
 * number is; the canonical metric follows them. A number nothing vouches for keeps an unknown
 * unit and is never compared with a known one.
 */
export type UnitEvidence = 'printed' | 'counts' | 'name' | 'raw' | 'none';
export interface MetricSource {
  field: string;
  evidence: UnitEvidence;
  note?: string;
}

export interface EvidenceInput {
  fields: readonly MetricField[];
  counts: Readonly<Record<string, number>>;
  /** Canonical metrics parsed from the run's own printed output (raw output fields), if any. */
  printed: Readonly<Record<string, number>> | null;
  /** Field name the printed values were read from, for provenance. */
  printedFrom?: string;
  /** Fields whose name a known pipeline bug makes untrustworthy without other evidence. */
  untrusted?: ReadonlySet<string>;
  /**
   * The metrics as the reader put them (each field's canonical name and value, in order): kept as
   * they are when the evidence changes none of them, instead of being built a second time.
   */
  current?: Record<string, number>;
}

export interface Reconciled {
  metrics: Record<string, number>;
  /** Frozen, and shared by runs whose sources are equal: copy before changing. */
  sources: Record<string, MetricSource>;
  /** What was re-labelled and why, naming the field. */
  notes: Array<{ field: string; message: string }>;
}

/** Names that do not say which quantity they hold. */
const AMBIGUOUS = new Set(['throughput_tok_s', 'throughput_unspecified']);

/** Printed blocks round to two decimals; stored fields sometimes keep more. */
const close = (a: number, b: number) => Math.abs(a - b) <= Math.max(0.0051, Math.abs(b) * 5e-4);
const near = (a: number, b: number, rel = 0.005) => b > 0 && Math.abs(a - b) / b <= rel;
/** Only rates are ever confused with each other; a latency is never re-labelled as another metric. */
const RATE_FAMILIES = new Set(['req/s', 'tok/s', 'unknown']);
const isRate = (key: string) => RATE_FAMILIES.has(unitFamily(key));

/** Throughputs the run's own counts imply (requests and tokens over the benchmark's duration). */
function fromCounts(c: Readonly<Record<string, number>>): Array<[string, number]> {
  const d = c.benchmark_duration_s;
  if (!(d > 0)) return [];
  const out: Array<[string, number]> = [];
  const done = c.successful_requests ?? c.num_prompts;
  if (done > 0) out.push(['request_throughput_req_s', done / d]);
  if (c.total_output_tokens > 0) out.push(['output_throughput_tok_s', c.total_output_tokens / d]);
  if (c.total_input_tokens > 0) out.push(['input_throughput_tok_s', c.total_input_tokens / d]);
  if (c.total_input_tokens > 0 && c.total_output_tokens > 0) out.push(['total_throughput_tok_s', (c.total_input_tokens + c.total_output_tokens) / d]);
  return out;
}

/** `current` itself when it holds exactly the fields' canonical names and values, in their order. */
function unchanged(current: Record<string, number>, fields: readonly MetricField[]): Record<string, number> | null {
  let i = 0;
  for (const k in current) {
    const f = fields[i++];
    if (!f || k !== f.canonical || !Object.is(current[k], f.value)) return null;
  }
  return i === fields.length ? current : null;
}

export function reconcileUnits(input: EvidenceInput): Reconciled {
  // Keyed by the catalogue's canonical names only (never by data), so a plain object: it stays in
  // V8's fast mode, a third of the memory and time of a prototype-less one (runs restored from the
  // index hold plain objects too).
  const fields = input.fields;
  // Made only once a put differs from the fields themselves (until then `current` says it all).
  let metrics: Record<string, number> | null = input.current ? null : {};
  let matched = 0;
  const own = (): Record<string, number> => {
    if (metrics) return metrics;
    const m: Record<string, number> = {};
    for (let i = 0; i < matched; i++) m[fields[i].canonical] = fields[i].value;
    return (metrics = m);
  };
  const notes: Reconciled['notes'] = [];
  const printed = input.printed ?? {};
  const printedFrom = input.printedFrom ?? 'the printed output';
  const derived = fromCounts(input.counts);
  // Sources gathered in order; the run's record of them is shared with runs that had the same.
  const gathered = new SourceList(input.fields.length);
  const put = (key: string, value: number, field: string, evidence: UnitEvidence, note?: string) => {
    if (!metrics) {
      const f = fields[matched];
      if (f && key === f.canonical && field === f.field && Object.is(value, f.value)) {
        matched++;
        gathered.add(key, field, evidence, note);
        return;
      }
    }
    const m = own();
    if (key in m) return;
    m[key] = value;
    gathered.add(key, field, evidence, note);
  };
  for (const f of fields) {
    const c = f.canonical;
    const doubtful = AMBIGUOUS.has(c) || !!input.untrusted?.has(f.field);
    // 1. The printed block under the same name confirms it (possibly in another unit of time).
    if (c in printed) {
      const pv = printed[c];
      if (close(f.value, pv)) {
        put(c, f.value, f.field, 'printed');
        continue;
      }
      if (unitFamily(c) === 'ms' && close(f.value * 1000, pv)) {
        notes.push({ field: f.field, message: `${f.value} is in seconds (${printedFrom} prints ${pv} ms): read as ${pv} ms` });
        put(c, pv, f.field, 'printed', 'seconds in a millisecond field');
        continue;
      }
    }
    // 2. The printed block says the number is another quantity.
    const other = isRate(c)
      ? Object.entries(printed).find(([k, pv]) => k !== c && isRate(k) && close(f.value, pv) && (doubtful || unitFamily(k) !== unitFamily(c)))
      : undefined;
    if (other) {
      const [k] = other;
      notes.push({
        field: f.field,
        message: `${f.value} is the ${metricDef(k)?.label ?? k} (${metricDef(k)?.unit}) printed in ${printedFrom}, not ${metricDef(c)?.label ?? c}: re-labelled`,
      });
      put(k, f.value, f.field, 'printed', `stored as ${f.field}`);
      continue;
    }
    // 3. The run's counts say which throughput it is.
    if (isRate(c)) {
      const same = derived.find(([k]) => k === c);
      if (same && near(f.value, same[1])) {
        put(c, f.value, f.field, 'counts');
        continue;
      }
      const hit = derived.find(([k, dv]) => k !== c && near(f.value, dv) && (doubtful || unitFamily(k) !== unitFamily(c)));
      if (hit) {
        notes.push({
          field: f.field,
          message: `${f.value} equals the run's ${metricDef(hit[0])?.label} from its counts (${hit[1].toFixed(2)} ${metricDef(hit[0])?.unit}): re-labelled`,
        });
        put(hit[0], f.value, f.field, 'counts', `stored as ${f.field}`);
        continue;
      }
    }
    // 4. Only the name: trusted unless a known pipeline bug makes it a guess.
    if (input.untrusted?.has(f.field)) {
      notes.push({
        field: f.field,
        message: `${f.field} = ${f.value}: the pipeline that wrote this field stored whatever "throughput" it found first; unit unknown`,
      });
      put('throughput_unspecified', f.value, f.field, 'none');
      continue;
    }
    put(c, f.value, f.field, c === 'throughput_unspecified' ? 'none' : 'name');
  }
  // Metrics printed in the run's output that no field stored.
  for (const [k, v] of Object.entries(printed)) if (metricDef(k)?.kind === 'metric') put(k, v, printedFrom, 'raw');
  return { metrics: metrics ?? unchanged(input.current!, fields) ?? own(), sources: gathered.shared(), notes };
}
