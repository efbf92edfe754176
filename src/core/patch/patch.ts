import { applyPatch, parsePatch, type StructuredPatch } from 'diff';

/** One file of a unified diff. */
export interface FilePatch {
  path: string;
  isNew: boolean;
  isDeleted: boolean;
  patch: StructuredPatch;
}

const strip = (p: string | undefined) => (p && p !== '/dev/null' ? p.replace(/^[ab]\//, '').replace(/\t.*$/, '') : null);

/** A patch that cannot be parsed: the message says where (the diff library's own words). */
export class PatchError extends Error {}

/** Patches above this size are refused before parsing. */
export const MAX_PATCH_BYTES = 32 * 1024 * 1024;

/**
 * Splits a patch per file. Agent patches often include a hunk that adds `model_patch.diff` to
 * itself (research §3); it is not part of the change and is dropped. A malformed patch throws
 * PatchError naming the line (never another exception).
 */
export function splitPatch(text: string): FilePatch[] {
  if (text.length > MAX_PATCH_BYTES)
    throw new PatchError(`the patch is ${(text.length / 1048576).toFixed(0)} MB, above the ${MAX_PATCH_BYTES / 1048576} MB limit`);
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(text);
  } catch (e) {
    throw new PatchError(`not a valid unified diff: ${e instanceof Error ? e.message : String(e)}`);
  }
  const out: FilePatch[] = [];
  for (const p of parsed) {
    const oldPath = strip(p.oldFileName),
      newPath = strip(p.newFileName);
    const path = newPath ?? oldPath;
    if (!path || path === 'model_patch.diff' || path.endsWith('/model_patch.diff')) continue;
    if (!p.hunks.length) continue;
    out.push({ path, isNew: !oldPath, isDeleted: !newPath, patch: p });
  }
  return out;
}

/** Hunks a file's patch may have, and lines a hunk may claim, before it is refused unread. */
const MAX_HUNKS = 5000;

/**
 * Hunk headers are data: one that claims a line far past the end of the file would send the
 * diff library's offset search on a very long walk (`@@ -99999999999,1 …` stalled for about 50
 * minutes). Headers are checked against the file first; a bad one is an error naming the hunk.
 */
export function checkHunks(base: string, fp: FilePatch): string | null {
  const lines = base.length ? base.split('\n').length : 0;
  if (fp.patch.hunks.length > MAX_HUNKS) return `the patch for ${fp.path} has ${fp.patch.hunks.length} hunks (more than ${MAX_HUNKS})`;
  for (const [i, h] of fp.patch.hunks.entries()) {
    const bad = (what: string) => `hunk ${i + 1} of ${fp.path} (@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@) ${what}`;
    if (![h.oldStart, h.oldLines, h.newStart, h.newLines].every(n => Number.isSafeInteger(n) && n >= 0)) return bad('has a malformed header');
    if (h.oldStart > lines + 1 || h.oldStart + h.oldLines - 1 > lines + 1) return bad(`starts past the end of the parent's file (${lines} lines)`);
    const body = h.lines.filter(l => l[0] !== '\\');
    if (body.filter(l => l[0] !== '+').length !== h.oldLines || body.filter(l => l[0] !== '-').length !== h.newLines)
      return bad('does not have the lines its header counts');
  }
  return null;
}

/** The file after the patch, or an error saying which hunk did not apply. */
export function applyFilePatch(base: string, fp: FilePatch): { ok: true; text: string } | { ok: false; error: string } {
  const bad = checkHunks(base, fp);
  if (bad) return { ok: false, error: bad };
  let r: string | false;
  try {
    r = applyPatch(base, fp.patch);
  } catch (e) {
    return { ok: false, error: `the patch for ${fp.path} cannot be applied: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (r === false)
    return {
      ok: false,
      error: `the patch for ${fp.path} does not apply to the parent (${fp.patch.hunks.length} hunk${fp.patch.hunks.length === 1 ? '' : 's'})`,
    };
  return { ok: true, text: r };
}

/**
 * Why an agent patch can't be used, or null: not text, no file in it, or a file outside the
 * checkout (an absolute path or `..`), which `git apply` would refuse only after the run started.
 */
export function patchProblem(text: string): string | null {
  if (text.includes('\0') || /^GIT binary patch$/m.test(text)) return 'is binary (a binary patch or NUL bytes), not a text diff';
  let files: FilePatch[];
  try {
    files = splitPatch(text);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  if (!files.length) return 'holds no file change (no diff hunks)';
  for (const f of files)
    if (f.path.startsWith('/') || /^[A-Za-z]:/.test(f.path) || f.path.split(/[\\/]/).includes('..'))
      return `touches ${JSON.stringify(f.path.slice(0, 200))}, outside the checkout`;
  return null;
}
