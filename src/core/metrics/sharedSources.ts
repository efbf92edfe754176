import { dict } from '../model';
import type { MetricSource, UnitEvidence } from './evidence';

/**
 * Runs a tool writes alike have the same sources (field, evidence and note per metric): they share
 * one frozen record instead of holding one each, a third of a scanned run's memory. A run's
 * sources are gathered as plain values and compared with the records used last, then with those
 * of the same hash (no key string built, no object made per metric); a record is made only for
 * sources not seen before. Bounded: past SHARED_MAX distinct records, a run keeps its own.
 */
const SHARED_MAX = 4096;
const RECENT = 8;

/** A shared record with the values it was made from, compared as arrays (a for…in over a frozen dictionary was slow). */
interface Known {
  record: Readonly<Record<string, MetricSource>>;
  keys: readonly string[];
  fields: readonly string[];
  evidence: readonly UnitEvidence[];
  notes: ReadonlyArray<string | undefined>;
}
const byHash = new Map<number, Known[]>();
let count = 0;
/** The records used last, most recent first. */
const recent: Known[] = [];

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
    // Runs of one file or tool come together, and their field names are the same string objects.
    for (let r = 0; r < recent.length; r++) {
      const k = recent[r];
      if (!this.same(k)) continue;
      if (r > 0) {
        recent.splice(r, 1);
        recent.unshift(k);
      }
      return k.record as Record<string, MetricSource>;
    }
    let h = 0x811c9dc5;
    for (let i = 0; i < this.n; i++) h = mix(mix(mix(mix(h, this.keys[i]), this.fields[i]), this.evidence[i]), this.notes[i] ?? '');
    const bucket = byHash.get(h);
    let known = bucket?.find(k => this.same(k));
    if (!known) {
      const record: Record<string, MetricSource> = dict();
      for (let i = 0; i < this.n; i++) {
        const note = this.notes[i];
        const field = this.fields[i];
        const evidence = this.evidence[i];
        record[this.keys[i]] = Object.freeze(note === undefined ? { field, evidence } : { field, evidence, note });
      }
      if (count >= SHARED_MAX) return record;
      const n = this.n;
      known = {
        record: Object.freeze(record),
        keys: this.keys.slice(0, n),
        fields: this.fields.slice(0, n),
        evidence: this.evidence.slice(0, n),
        notes: this.notes.slice(0, n),
      };
      count++;
      if (bucket) bucket.push(known);
      else byHash.set(h, [known]);
    }
    recent.unshift(known);
    if (recent.length > RECENT) recent.pop();
    return known.record as Record<string, MetricSource>;
  }

  private same(k: Known): boolean {
    if (k.keys.length !== this.n) return false;
    for (let i = 0; i < this.n; i++)
      if (k.keys[i] !== this.keys[i] || k.fields[i] !== this.fields[i] || k.evidence[i] !== this.evidence[i] || k.notes[i] !== this.notes[i]) return false;
    return true;
  }
}
