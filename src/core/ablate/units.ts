import { formatPatch, type StructuredPatch } from 'diff';
import type { FilePatch } from '../patch';

/** How a patch is cut for ablation: whole files, or each hunk. */
export type UnitMode = 'files' | 'hunks';

/** One hunk of the patch: its file's index and its own index in that file. */
export interface HunkRef {
  file: number;
  hunk: number;
}

/** A piece of the patch that is switched on or off as a whole. */
export interface PatchUnit {
  /** `U1`, `U2` … in patch order (stable for one patch and one mode). */
  id: string;
  /** What a reader sees: the file, and the hunk's header and place when a unit is a hunk. */
  label: string;
  path: string;
  parts: HunkRef[];
  added: number;
  removed: number;
}

/** Units merged because one could not apply without the other. */
export interface UnitMerge {
  into: string;
  from: string[];
  why: string;
}

/** Hunks at most for the default cut by hunk; above, by file. */
export const HUNK_UNITS_MAX = 12;

const hunkCount = (files: readonly FilePatch[]) => files.reduce((n, f) => n + f.patch.hunks.length, 0);

/** The mode asked for, else hunks for a patch of ≤ 12 hunks and files above. */
export function unitMode(files: readonly FilePatch[], asked?: UnitMode): UnitMode {
  return asked ?? (hunkCount(files) <= HUNK_UNITS_MAX ? 'hunks' : 'files');
}

const counted = (f: FilePatch, hunks: number[]) => {
  let added = 0,
    removed = 0;
  for (const i of hunks)
    for (const l of f.patch.hunks[i].lines) {
      if (l[0] === '+') added++;
      else if (l[0] === '-') removed++;
    }
  return { added, removed };
};

/**
 * The units of a patch. A created or deleted file is one unit in either mode: half a new file is
 * not a change anyone made.
 */
export function splitUnits(files: readonly FilePatch[], mode: UnitMode): PatchUnit[] {
  const out: PatchUnit[] = [];
  const id = () => `U${out.length + 1}`;
  files.forEach((f, file) => {
    const all = f.patch.hunks.map((_, i) => i);
    if (mode === 'files' || f.isNew || f.isDeleted || all.length === 1) {
      out.push({ id: id(), label: f.path, path: f.path, parts: all.map(hunk => ({ file, hunk })), ...counted(f, all) });
      return;
    }
    for (const hunk of all) {
      const h = f.patch.hunks[hunk];
      out.push({
        id: id(),
        label: `${f.path} @@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@ (hunk ${hunk + 1} of ${all.length})`,
        path: f.path,
        parts: [{ file, hunk }],
        ...counted(f, [hunk]),
      });
    }
  });
  return out;
}

/** Where a hunk starts on the new side once only `kept` hunks before it apply. */
function rebased(h: StructuredPatch['hunks'][number], delta: number) {
  // An insertion (0 old lines) names the line before it; so does a deletion on the new side.
  const first = h.oldLines === 0 ? h.oldStart + 1 : h.oldStart;
  const start = first + delta;
  return h.newLines === 0 ? start - 1 : start;
}

/**
 * The patch with only `parts` (a subset of its hunks), as a unified diff `git apply` takes: each
 * kept hunk's new-side start moved by what the dropped hunks before it would have added or removed.
 * Empty when no part is kept.
 */
export function subsetPatch(files: readonly FilePatch[], parts: readonly HunkRef[]): string {
  const keep = new Map<number, Set<number>>();
  for (const p of parts) keep.set(p.file, (keep.get(p.file) ?? new Set()).add(p.hunk));
  const out: StructuredPatch[] = [];
  files.forEach((f, file) => {
    const kept = keep.get(file);
    if (!kept?.size) return;
    let delta = 0;
    const hunks = [];
    for (const [i, h] of f.patch.hunks.entries()) {
      if (!kept.has(i)) continue;
      hunks.push({ ...h, newStart: rebased(h, delta) });
      delta += h.newLines - h.oldLines;
    }
    out.push({ ...f.patch, hunks });
  });
  if (!out.length) return '';
  const text = formatPatch(out, { includeIndex: false, includeUnderline: false, includeFileHeaders: true });
  return text.endsWith('\n') ? text : text + '\n';
}

/** The parts of a set of units, in patch order. */
export function partsOf(units: readonly PatchUnit[], ids: Iterable<string>): HunkRef[] {
  const want = new Set(ids);
  return units
    .filter(u => want.has(u.id))
    .flatMap(u => u.parts)
    .sort((a, b) => a.file - b.file || a.hunk - b.hunk);
}

/**
 * Units that cannot apply alone merged with the one they need. `alone(parts)` says why a subset
 * does not apply (on the parent: `git apply --check`, or the diff library on the parent's files),
 * or null. A unit that fails alone is tried with each earlier unit of its file, then each earlier
 * unit; the first that makes it apply takes it in. One that applies with none stays, marked.
 */
export function mergeDependent(
  units: readonly PatchUnit[],
  alone: (parts: HunkRef[]) => string | null,
): { units: PatchUnit[]; merges: UnitMerge[]; unappliable: Array<{ unit: string; why: string }> } {
  let list = units.map(u => ({ ...u, parts: [...u.parts] }));
  const merges: UnitMerge[] = [];
  const unappliable: Array<{ unit: string; why: string }> = [];
  for (let i = 0; i < list.length; i++) {
    const u = list[i];
    const why = alone(u.parts);
    if (why === null) continue;
    const candidates = [...list.slice(0, i).filter(x => x.path === u.path), ...list.slice(0, i).filter(x => x.path !== u.path), ...list.slice(i + 1)];
    const host = candidates.find(c => alone([...c.parts, ...u.parts].sort((a, b) => a.file - b.file || a.hunk - b.hunk)) === null);
    if (!host) {
      unappliable.push({ unit: u.id, why });
      continue;
    }
    host.parts = [...host.parts, ...u.parts].sort((a, b) => a.file - b.file || a.hunk - b.hunk);
    host.added += u.added;
    host.removed += u.removed;
    host.label = host.path === u.path ? host.label : `${host.label} + ${u.label}`;
    const m = merges.find(x => x.into === host.id);
    if (m) {
      m.from.push(u.id);
      m.why += `; ${u.id}: ${why}`;
    } else merges.push({ into: host.id, from: [u.id], why: `${u.id} alone: ${why}` });
    list = list.filter(x => x !== u);
    i--;
  }
  return { units: list, merges, unappliable };
}

/**
 * Where each hunk of a patch text starts (0-based line of its `@@` header), numbered as `splitPatch`
 * numbers files and hunks: a section of `model_patch.diff` or one without hunks is not a file there.
 */
export function hunkLines(text: string): Array<HunkRef & { line: number }> {
  const out: Array<HunkRef & { line: number }> = [];
  const lines = text.split('\n');
  let file = -1,
    hunk = 0,
    counted = false,
    skip = false,
    path: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('--- ') && i + 1 < lines.length && lines[i + 1].startsWith('+++ ')) {
      const name = (p: string) => p.slice(4).replace(/\t.*$/, '');
      const oldP = name(l),
        newP = name(lines[i + 1]);
      path = (newP !== '/dev/null' ? newP : oldP).replace(/^[ab]\//, '');
      skip = path === 'model_patch.diff' || path.endsWith('/model_patch.diff');
      counted = false;
      hunk = 0;
      i++;
      continue;
    }
    if (l.startsWith('@@ ') && path !== null && !skip) {
      if (!counted) {
        file++;
        counted = true;
      }
      out.push({ file, hunk: hunk++, line: i });
    }
  }
  return out;
}
