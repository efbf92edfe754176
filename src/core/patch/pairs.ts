import type { FilePatch } from './patch';

/** One file as two patches touch it: each side's hunks as text (null where that patch leaves the file alone). */
export interface FilePair {
  path: string;
  human: string | null;
  agent: string | null;
}

/** A file's hunks as a reader wants them beside the other patch's: its headers, then each hunk as written. */
export function hunksText(fp: FilePatch): string {
  const what = fp.isNew ? ' (new file)' : fp.isDeleted ? ' (deleted)' : '';
  const out = [`${fp.path}${what}`];
  for (const h of fp.patch.hunks) out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  return out.join('\n') + '\n';
}

/**
 * Two patches file by file, for a reader without the parent commit: the files both touch first
 * (each a diff of its two hunk lists), then those only one touches, apart. Two patch texts diffed
 * whole are a wall of red as soon as their files come in another order.
 */
export function pairFilePatches(human: readonly FilePatch[], agent: readonly FilePatch[]): { both: FilePair[]; humanOnly: FilePair[]; agentOnly: FilePair[] } {
  const h = new Map(human.map(f => [f.path, f]));
  const a = new Map(agent.map(f => [f.path, f]));
  const byPath = (x: FilePair, y: FilePair) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);
  const both: FilePair[] = [],
    humanOnly: FilePair[] = [],
    agentOnly: FilePair[] = [];
  for (const [p, f] of h) (a.has(p) ? both : humanOnly).push({ path: p, human: hunksText(f), agent: a.has(p) ? hunksText(a.get(p)!) : null });
  for (const [p, f] of a) if (!h.has(p)) agentOnly.push({ path: p, human: null, agent: hunksText(f) });
  return { both: both.sort(byPath), humanOnly: humanOnly.sort(byPath), agentOnly: agentOnly.sort(byPath) };
}
