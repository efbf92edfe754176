import { dict } from '../model';
import type { MetricSource, UnitEvidence } from './evidence';

/**
 * Runs a tool writes alike have the same sources (field, evidence and note per metric): they share
 * one frozen record instead of holding one each, a third of a scanned run's memory. A run's
 * sources are gathered as plain values, found among the known records by a hash of them (no key
 * string built, no object made per metric) and checked entry by entry; a record is made only for
 * sources not seen before. Bounded: past SHARED_MAX distinct records, a run keeps its own.
 */
const SHARED_MAX = 4096;
const byHash = new Map<number, Array<Readonly<Record<string, MetricSource>>>>();
let count = 0;
/** The records used last, most recent first. */
const RECENT = 8;
const recent: Array<Readonly<Record<string, MetricSource>>> = [];

/** FNV-1a over a string's UTF-16 units, continued from `h`, then a separator. */
function mix(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return Math.imul(h ^ 0xffff, 0x01000193);
}

/** One run's sources, in the order its metrics were put. */
export class SourceList {
  private readonly keys: string[];
  private readonly fields: string[];
  private readonly evidence: UnitEvidence[];
  private readonly notes: Array<string | undefined>;
  private n = 0;

  /** `expected`: the entries there will likely be (sized once: grown arrays were most of a run's garbage). */
  constructor(expected: number) {
    const size = Math.min(Math.max(expected, 4), 4096);
    this.keys = new Array<string>(size);
    this.fields = new Array<string>(size);
    this.evidence = new Array<UnitEvidence>(size);
    this.notes = new Array<string | undefined>(size);
  }

  add(key: string, field: string, evidence: UnitEvidence, note?: string): void {
    const i = this.n++;
    this.keys[i] = key;
    this.fields[i] = field;
    this.evidence[i] = evidence;
    this.notes[i] = note;
  }

  /** The record of these sources: frozen, and shared with every earlier run that had the same. */
  shared(): Record<string, MetricSource> {
    // Runs of one file or tool come together: the records used last are tried first (their field
    // names are the same string objects, so comparing them is cheap), before any hashing.
    for (let r = 0; r < recent.length; r++)
      if (this.same(recent[r])) {
        const hit = recent[r];
        if (r > 0) {
          recent.splice(r, 1);
          recent.unshift(hit);
        }
        return hit as Record<string, MetricSource>;
      }
    const found = this.lookup();
    if (Object.isFrozen(found)) {
      recent.unshift(found);
      if (recent.length > RECENT) recent.pop();
    }
    return found;
  }

  private lookup(): Record<string, MetricSource> {
    let h = 0x811c9dc5;
    for (let i = 0; i < this.n; i++) h = mix(mix(mix(mix(h, this.keys[i]), this.fields[i]), this.evidence[i]), this.notes[i] ?? '');
    const bucket = byHash.get(h);
    if (bucket) for (const known of bucket) if (this.same(known)) return known as Record<string, MetricSource>;
    const out: Record<string, MetricSource> = dict();
    for (let i = 0; i < this.n; i++) {
      const note = this.notes[i];
      out[this.keys[i]] = Object.freeze(
        note === undefined ? { field: this.fields[i], evidence: this.evidence[i] } : { field: this.fields[i], evidence: this.evidence[i], note },
      );
    }
    if (count >= SHARED_MAX) return out;
    Object.freeze(out);
    count++;
    if (bucket) bucket.push(out);
    else byHash.set(h, [out]);
    return out;
  }

  private same(known: Readonly<Record<string, MetricSource>>): boolean {
    let i = 0;
    for (const k in known) {
      const a = known[k];
      if (i >= this.n || k !== this.keys[i] || a.field !== this.fields[i] || a.evidence !== this.evidence[i] || a.note !== this.notes[i]) return false;
      i++;
    }
    return i === this.n;
  }
}
