import type { AgentRun, UnlinkedAgentRun } from '../model';
import { CommitIndex, normaliseHash } from './commits';
import { isObj, str } from './detectors/common';

/** What the scan saw of one agent item folder (`<repo>/<agent>/<model>/<run_ts>/<item_id>/`). */
export interface AgentItemFiles {
  dir: string;
  json: Map<string, unknown | { corrupt: string }>;
  patch: { path: string; bytes: number } | null;
}

export const AGENT_ITEM_FILES = new Set(['journal.json', 'run_summary.json', 'prompt.json', 'model_patch.diff', 'task.txt']);
const RUN_TS = /^(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}|[0-9a-f]{8})$/;

export function isAgentItemFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return AGENT_ITEM_FILES.has(name) && /(^|\/)(runs|incomplete_runs)\//.test(path);
}

const isCorrupt = (v: unknown): v is { corrupt: string } => isObj(v) && typeof (v as { corrupt?: unknown }).corrupt === 'string' && Object.keys(v).length === 1;

function commitsOf(v: unknown): { human: string | null; pre: string | null } {
  if (!isObj(v) || !isObj(v.commits)) return { human: null, pre: null };
  return { human: normaliseHash(v.commits.human), pre: normaliseHash(v.commits.pre) };
}

/**
 * Links item folders to commits. The journal's `commits.human` is authoritative; run_summary.json
 * and prompt.json carry the same field; the item id may end in `_<h8>`. Agent and model come from
 * the folder path, never from the files (which misreport them, research §3).
 */
export function linkAgentRuns(items: Iterable<AgentItemFiles>, index: CommitIndex): { linked: AgentRun[]; unlinked: UnlinkedAgentRun[] } {
  const linked: AgentRun[] = [];
  const unlinked: UnlinkedAgentRun[] = [];
  for (const item of items) {
    const seg = item.dir.split('/');
    const itemId = seg[seg.length - 1];
    const runTs = seg[seg.length - 2] ?? null;
    const pathOk = runTs !== null && RUN_TS.test(runTs) && seg.length >= 5;
    const journal = item.json.get('journal.json');
    let via: string | null = null;
    let c = { human: null as string | null, pre: null as string | null };
    for (const name of ['journal.json', 'run_summary.json', 'prompt.json']) {
      const v = item.json.get(name);
      if (v === undefined || isCorrupt(v)) continue;
      const got = commitsOf(v);
      if (got.human) {
        c = got;
        via = name;
        break;
      }
    }
    if (!c.human) {
      const m = /_([0-9a-f]{8})$/.exec(itemId);
      if (m) {
        c.human = m[1];
        via = 'item id';
      }
    }
    if (!c.human) {
      const why =
        journal === undefined
          ? 'no journal.json'
          : isCorrupt(journal)
            ? `journal.json is unreadable (${journal.corrupt})`
            : 'journal.json has no commits.human';
      unlinked.push({ path: item.dir, reason: `${why}, and no other file of the item names the commit` });
      continue;
    }
    const j = isObj(journal) && !isCorrupt(journal) ? journal : null;
    linked.push({
      dir: item.dir,
      repo: pathOk ? seg[seg.length - 5] : null,
      agent: pathOk ? seg[seg.length - 4] : null,
      model: pathOk ? seg[seg.length - 3] : null,
      runTimestamp: pathOk ? runTs : null,
      itemId,
      commit: index.resolve(c.human),
      linkedVia: via ?? 'journal.json',
      parent: c.pre ? index.resolve(c.pre) : null,
      status: j ? str(j.status) : null,
      patch: item.patch ? { ...item.patch, empty: item.patch.bytes === 0 } : null,
    });
  }
  return { linked, unlinked };
}
