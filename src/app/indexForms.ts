// What the persistent index holds, to and from the Workspace's memory: the listing as rows, the
// extracts with their stamps and classifications per file, and the entries with runs by id.
import { ROLES } from '../core/model';
import type { FileExtract, Listing } from '../core/ingest';
import type { Classification } from '../core/classify';
import type { CommitTriage } from '../core/compare';
import type { IndexData, StateData } from './indexStore';

/** A listing as the index stores it: one [path, size, mtime] row per file. */
export const listingRows = (l: Listing): IndexData['listing'] => ({ files: l.files.map(f => [f.path, f.size, f.mtimeMs ?? null]), records: l.records });

/** A listing as the index stores it back in memory. */
export const storedListing = (l: IndexData['listing']): Listing => ({
  files: l.files.map(([path, size, mtimeMs]) => ({ path, size, ...(mtimeMs !== null ? { mtimeMs } : {}) })),
  records: l.records,
});

/** Each file's extract, its stamp and the classifications of its runs (ids are `<file>#<n>`). */
export function indexFiles(
  extracts: ReadonlyMap<string, FileExtract>,
  stamps: ReadonlyMap<string, string>,
  classifications: ReadonlyMap<string, Classification>,
): IndexData['files'] {
  const byFile = new Map<string, Record<string, Classification>>();
  for (const [id, c] of classifications) {
    const file = id.slice(0, id.lastIndexOf('#'));
    (byFile.get(file) ?? byFile.set(file, {}).get(file)!)[id] = c;
  }
  const files: IndexData['files'] = {};
  for (const [p, x] of extracts) files[p] = { stamp: stamps.get(p) ?? '', extract: x, classifications: byFile.get(p) ?? {} };
  return files;
}

/** Entries with their runs named by id (the runs themselves are in the state's result). */
export const storedEntries = (entries: readonly CommitTriage[]): StateData['entries'] =>
  entries.map(e => ({
    ...e,
    roles: Object.fromEntries(
      ROLES.map(role => [
        role,
        { run: e.roles[role].run?.id ?? null, history: e.roles[role].history.map(r => r.id), attempts: e.roles[role].attempts.map(r => r.id) },
      ]),
    ) as StateData['entries'][number]['roles'],
  }));

/** Entries re-linked to the state's runs and classifications. */
export function restoredEntries(s: StateData, classifications: ReadonlyMap<string, Classification>): CommitTriage[] {
  const runs = new Map(s.result.runs.map(r => [r.id, r]));
  return s.entries.map(e => ({
    ...e,
    roles: Object.fromEntries(
      ROLES.map(role => {
        const v = e.roles[role];
        const run = v.run ? (runs.get(v.run) ?? null) : null;
        return [
          role,
          {
            run,
            history: v.history.map(id => runs.get(id)!).filter(Boolean),
            attempts: v.attempts.map(id => runs.get(id)!).filter(Boolean),
            classification: run ? (classifications.get(run.id) ?? null) : null,
          },
        ];
      }),
    ) as CommitTriage['roles'],
  }));
}
