import type { Role } from '../core/model';

/**
 * One identity type for a commit entry (a commit × agent of a workspace folder) and one for a
 * run (a role's attempt), each with one string form, used everywhere a key is needed: tree ids,
 * webview panels, the Runs view, maps. No other ad-hoc key strings.
 */
export interface EntryKey {
  folder: string;
  commit: string;
  agent: string | null;
}
export interface RunKey {
  folder: string;
  commit: string;
  role: Role;
  runId: string;
}

const enc = encodeURIComponent;
const dec = decodeURIComponent;

export const EntryKeys = {
  of: (folder: string, commit: string, agent: string | null): EntryKey => ({ folder, commit, agent }),
  format: (k: EntryKey): string => `entry|${enc(k.folder)}|${k.commit}|${k.agent === null ? '-' : enc(k.agent)}`,
  parse(s: string): EntryKey | null {
    const m = /^entry\|([^|]*)\|([0-9a-f]{7,40})\|([^|]*)$/.exec(s);
    return m ? { folder: dec(m[1]), commit: m[2], agent: m[3] === '-' ? null : dec(m[3]) } : null;
  },
  equals: (a: EntryKey, b: EntryKey) => a.folder === b.folder && a.commit === b.commit && a.agent === b.agent,
};

export const RunKeys = {
  of: (folder: string, commit: string, role: Role, runId: string): RunKey => ({ folder, commit, role, runId }),
  format: (k: RunKey): string => `run|${enc(k.folder)}|${k.commit}|${k.role}|${enc(k.runId)}`,
  parse(s: string): RunKey | null {
    const m = /^run\|([^|]*)\|([0-9a-f]{7,40})\|(baseline|human|agent)\|([^|]*)$/.exec(s);
    return m ? { folder: dec(m[1]), commit: m[2], role: m[3] as Role, runId: dec(m[4]) } : null;
  },
  equals: (a: RunKey, b: RunKey) => a.folder === b.folder && a.commit === b.commit && a.role === b.role && a.runId === b.runId,
};
