import { stripPrefixes } from '../structure/prefix';
import type { Structure } from '../structure/reader';

/** Words that say nothing about a failure's kind. */
const STOP = new Set(
  'the a an to of in is and for on at with from by be this that it or as was are were been has have had you your we can will if then than into its but so do does did which when what there their these those please see above below following line file'.split(
    ' ',
  ),
);
/** Lines and characters of a line looked at: the tail of a failure is where its kind shows. */
const MAX_LINES = 12;
const MAX_CHARS = 1000;

/**
 * The tokens the learned stage reads: the words of the candidate error lines (prefixes, addresses,
 * hashes and numbers removed; dotted names also split), plus what the structure reader saw
 * (`exc:` exception types, `pkg:` packages of their frames, `fact:` error codes). A set: presence,
 * not counts, so a repeated line does not outweigh the rest.
 */
export function tokensOf(lines: readonly string[], structure?: Structure | null): string[] {
  const out = new Set<string>();
  for (const raw of lines.slice(-MAX_LINES)) {
    const text = stripPrefixes(raw)
      .text.slice(0, MAX_CHARS)
      .toLowerCase()
      .replace(/0x[0-9a-f]+|\b[0-9a-f]{12,}\b|https?:\/\/\S+/g, ' ');
    for (const w of text.split(/[^a-z0-9_.]+/)) {
      const word = w.replace(/^[._]+|[._]+$/g, '');
      if (word.length < 2 || word.length > 40 || /^[\d._]+$/.test(word) || STOP.has(word)) continue;
      out.add(word);
      if (word.includes('.')) for (const part of word.split('.')) if (part.length >= 2 && !/^\d+$/.test(part) && !STOP.has(part)) out.add(part);
    }
  }
  if (structure) {
    for (const e of structure.exceptions.slice(-4)) {
      out.add(`exc:${e.type.split('.').pop()!.toLowerCase()}`);
      for (const f of e.frames.slice(-3)) out.add(`pkg:${f.pkg.toLowerCase()}`);
    }
    for (const f of structure.facts.slice(0, 8)) out.add(`fact:${f.kind}:${f.key.toLowerCase().slice(0, 40)}`);
  }
  return [...out].sort();
}
