// What the persistent index holds, to and from the Workspace's memory: the listing as rows, the
// extracts with their stamps and classifications per file, and the entries with runs by id.
import { ROLES, type Run } from '../core/model';
import type { FileExtract, Listing } from '../core/ingest';
import type { Classification } from '../core/classify';
import type { CommitTriage } from '../core/compare';
import type { IndexData, StateData, StoredEntry } from './indexStore';

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

/** Entries with their runs named by their place in the state's runs (`runAt`: a run's id → its place). */
export const storedEntries = (entries: readonly CommitTriage[], runAt: ReadonlyMap<string, number>): StoredEntry[] => {
  const at = (r: Run) => {
    const i = runAt.get(r.id);
    if (i === undefined) throw new Error(`the entry's run ${r.id} is not among the result's runs`);
    return i;
  };
  return entries.map(e => ({
    ...e,
    roles: Object.fromEntries(
      ROLES.map(role => {
        const v = e.roles[role];
        return [role, { run: v.run ? at(v.run) : null, history: v.history.map(at), attempts: v.attempts.map(at) }];
      }),
    ) as StoredEntry['roles'],
  }));
};

/**
 * Entries re-linked to the state's runs and classifications. Each entry's `roles` is made when
 * first read: the Commits tree's first paint reads the entries' own fields, and reading a role
 * reads only its runs (`runAt` parses one run of a lazy state).
 */
export function restoredEntries(s: StateData, runAt: (i: number) => Run, classificationOf: (id: string) => Classification | undefined): CommitTriage[] {
  const rolesOf = (stored: StoredEntry['roles']): CommitTriage['roles'] => {
    const out = {} as CommitTriage['roles'];
    for (const role of ROLES) {
      const v = stored[role];
      const run = v.run !== null ? runAt(v.run) : null;
      out[role] = { run, history: v.history.map(runAt), attempts: v.attempts.map(runAt), classification: run ? (classificationOf(run.id) ?? null) : null };
    }
    return out;
  };
  return s.entries.map(stored => {
    // The state's own object becomes the entry (a copy of 10 000 would cost what laziness saves).
    const refs = stored.roles;
    const e = stored as unknown as CommitTriage;
    let roles: CommitTriage['roles'] | null = null;
    Object.defineProperty(e, 'roles', {
      get: () => (roles ??= rolesOf(refs)),
      set: (v: CommitTriage['roles']) => (roles = v),
      enumerable: true,
      configurable: true,
    });
    return e;
  });
}
