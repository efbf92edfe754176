import { applyPatch, parsePatch, type StructuredPatch } from 'diff';

/** One file of a unified diff. */
export interface FilePatch { path: string; isNew: boolean; isDeleted: boolean; patch: StructuredPatch }

const strip = (p: string | undefined) => (p && p !== '/dev/null' ? p.replace(/^[ab]\//, '').replace(/\t.*$/, '') : null);

/**
 * Splits a patch per file. Agent patches often include a hunk that adds `model_patch.diff` to
 * itself (research §3); it is not part of the change and is dropped.
 */
export function splitPatch(text: string): FilePatch[] {
  const out: FilePatch[] = [];
  for (const p of parsePatch(text)) {
    const oldPath = strip(p.oldFileName), newPath = strip(p.newFileName);
    const path = newPath ?? oldPath;
    if (!path || path === 'model_patch.diff' || path.endsWith('/model_patch.diff')) continue;
    if (!p.hunks.length) continue;
    out.push({ path, isNew: !oldPath, isDeleted: !newPath, patch: p });
  }
  return out;
}

/** The file after the patch, or an error saying which hunk did not apply. */
export function applyFilePatch(base: string, fp: FilePatch): { ok: true; text: string } | { ok: false; error: string } {
  const r = applyPatch(base, fp.patch);
  if (r === false) return { ok: false, error: `the patch for ${fp.path} does not apply to the parent (${fp.patch.hunks.length} hunk${fp.patch.hunks.length === 1 ? '' : 's'})` };
  return { ok: true, text: r };
}
