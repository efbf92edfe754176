import { parse } from 'csv-parse/sync';
import picomatch from 'picomatch';
import type { Identity, Role } from '../model';
import { ROLES } from '../model';

/**
 * Identity for the field's standalone result files, which name no commit and no role:
 *
 * 1. a manifest `bench-triage.csv` in the file's folder or any parent up to the scanned root,
 *    columns `path,commit,role,agent` (`path` relative to the manifest, globs allowed; `agent`,
 *    `model` and `command` optional); the nearest manifest with a matching row wins;
 * 2. else the path: a segment that is a hex commit id (7–40) and, below it, a segment `baseline`,
 *    `human` or `agent` (an `agent` segment may be followed by the agent's name).
 *
 * Neither: the file is "not attributed", with both fixes; never a guess.
 */
export const MANIFEST_NAME = 'bench-triage.csv';

export interface ManifestRow {
  pattern: string;
  commit: string;
  role: Role;
  agent: string | null;
  model: string | null;
  command: string | null;
  line: number;
}
export interface Manifest {
  rows: ManifestRow[];
  problems: Array<{ field: string; message: string }>;
}

const HEX = /^[0-9a-f]{7,40}$/i;
const MAX_ROWS = 100_000;
const MAX_FIELD = 4096;

/** Reads a manifest; every bad row is a finding naming its line and column, and is left out. */
export function parseManifest(text: string): Manifest {
  const problems: Manifest['problems'] = [];
  let records: string[][];
  try {
    records = parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      comment: '#',
      max_record_size: 64 * 1024,
      to: MAX_ROWS + 2,
    }) as string[][];
  } catch (e) {
    const m = e as { message?: string; lines?: number };
    return { rows: [], problems: [{ field: `line ${m.lines ?? '?'}`, message: `not CSV: ${String(m.message ?? e).slice(0, 200)}` }] };
  }
  if (!records.length) return { rows: [], problems: [{ field: 'line 1', message: 'empty manifest: no header (path,commit,role,agent)' }] };
  const header = records[0].map(h => h.toLowerCase());
  const col = (name: string) => header.indexOf(name);
  for (const need of ['path', 'commit', 'role'])
    if (col(need) < 0)
      problems.push({
        field: 'line 1',
        message: `the header has no "${need}" column (expected path,commit,role,agent; found ${header.join(',').slice(0, 120)})`,
      });
  if (problems.length) return { rows: [], problems };
  for (const h of header)
    if (!['path', 'commit', 'role', 'agent', 'model', 'command'].includes(h))
      problems.push({ field: `line 1, column ${h}`, message: 'not a manifest column: ignored' });
  const rows: ManifestRow[] = [];
  for (let i = 1; i < records.length; i++) {
    const line = i + 1;
    if (i > MAX_ROWS) {
      problems.push({ field: `line ${line}`, message: `more than ${MAX_ROWS} rows: the rest are not read` });
      break;
    }
    const rec = records[i];
    const get = (name: string) => {
      const c = col(name);
      const v = c >= 0 ? (rec[c] ?? '') : '';
      return v.length > MAX_FIELD ? null : v;
    };
    const bad = (column: string, message: string) => problems.push({ field: `line ${line}, column ${column}`, message });
    const pattern = get('path'),
      commit = get('commit'),
      role = get('role')?.toLowerCase() ?? '';
    if (!pattern) {
      bad('path', 'empty or too long');
      continue;
    }
    if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
      bad('path', `"${pattern.slice(0, 80)}" is not a path inside the manifest's folder`);
      continue;
    }
    if (!commit || !HEX.test(commit)) {
      bad('commit', `"${(commit ?? '').slice(0, 80)}" is not a commit id (7 to 40 hex digits)`);
      continue;
    }
    if (!(ROLES as readonly string[]).includes(role)) {
      bad('role', `"${role.slice(0, 40)}" is not baseline, human or agent`);
      continue;
    }
    const agent = get('agent')?.trim() || null;
    if (agent && role !== 'agent') bad('agent', `an agent name on a ${role} row: ignored`);
    rows.push({
      pattern,
      commit: commit.toLowerCase(),
      role: role as Role,
      agent: role === 'agent' ? agent : null,
      model: get('model')?.trim() || null,
      command: get('command')?.trim() || null,
      line,
    });
  }
  return { rows, problems };
}

export interface Attribution {
  commit: string;
  role: Role;
  agent: string | null;
  model: string | null;
  command: string | null;
  identity: Identity;
}

const matchers = new WeakMap<ManifestRow, (p: string) => boolean>();
function matcherOf(row: ManifestRow): (p: string) => boolean {
  let m = matchers.get(row);
  if (!m) {
    const glob = picomatch(row.pattern, { dot: true });
    m = (p: string) => p === row.pattern || glob(p);
    matchers.set(row, m);
  }
  return m;
}

/** The row of the nearest manifest (by folder, file's own first) that names this file. */
export function fromManifests(path: string, manifests: ReadonlyMap<string, { path: string; manifest: Manifest }>): Attribution | null {
  let dir = path.slice(0, path.lastIndexOf('/') + 1);
  for (;;) {
    const m = manifests.get(dir);
    if (m) {
      const rel = path.slice(dir.length);
      const row = m.manifest.rows.find(r => matcherOf(r)(rel));
      if (row)
        return {
          commit: row.commit,
          role: row.role,
          agent: row.agent,
          model: row.model,
          command: row.command,
          identity: { by: 'manifest', source: m.path, line: row.line },
        };
    }
    if (!dir) return null;
    dir = dir.slice(0, dir.lastIndexOf('/', dir.length - 2) + 1);
  }
}

/** `…/<commit>/…/<role>[/<agent>]/…/file`: the role segment nearest below a commit segment. */
export function fromPath(path: string): Attribution | null {
  const seg = path.split('/');
  const dirs = seg.length - 1; // the last segment is the file
  for (let j = 0; j < dirs; j++) {
    if (!HEX.test(seg[j])) continue;
    for (let i = j + 1; i < dirs; i++) {
      if (HEX.test(seg[i])) break; // a nearer commit segment takes over
      const role = seg[i].toLowerCase();
      if (!(ROLES as readonly string[]).includes(role)) continue;
      const agent = role === 'agent' && i + 1 < dirs ? seg[i + 1] : null;
      return {
        commit: seg[j].toLowerCase(),
        role: role as Role,
        agent,
        model: null,
        command: null,
        identity: { by: 'path', source: seg.slice(j, agent ? i + 2 : i + 1).join('/') },
      };
    }
  }
  return null;
}

export const UNATTRIBUTED_FIX = `names no commit or role: add a row for it to a ${MANIFEST_NAME} (columns path,commit,role,agent) in its folder or a parent, or put it under <commit>/<role>/ (e.g. 1a2b3c4d/human/, 1a2b3c4d/agent/<agent>/)`;
