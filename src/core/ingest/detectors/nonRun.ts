import type { NonRunKind } from '../../model';
import { isObj, type Obj } from './common';

const AGENT_FILES = new Set(['journal.json', 'run_summary.json', 'prompt.json', 'diff_targets.json', 'prediction.jsonl', 'trajectory.json']);

export function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Recognised by place alone (agent item folders, mapping folders), before the content is read. */
export function nonRunByPath(path: string): NonRunKind | null {
  const name = baseName(path);
  if (AGENT_FILES.has(name) && /(^|\/)(runs|incomplete_runs|trajectories)\//.test(path)) return 'agent-run';
  if (/(^|\/)data\/mappings\//.test(path)) return 'mapping';
  if (name === 'notes.json' && path.includes('.bench-triage/')) return 'notes';
  // The runner's own step-by-step record next to each result.json (its result is in result.json).
  if (name === 'run.json' && /(^|\/)\.bench-triage\/runs\//.test(path)) return 'run-record';
  // Under `.bench-triage/` only the runner's results and the builds' records are results; the rest is the tool's own.
  if (/(^|\/)\.bench-triage\//.test(path) && !/(^|\/)\.bench-triage\/(runs\/.*\/result\.json|builds\/.*\/build\.json)$/.test(path)) return 'tool-record';
  return null;
}

/**
 * Aggregates that repeat per-commit data (research §1.11): progress logs, reports, exports and HF
 * record lists. They are recognised so that nothing in them is counted twice as a run.
 */
export function nonRunByShape(v: unknown, path: string): NonRunKind | null {
  if (Array.isArray(v)) {
    const first = v.find(isObj) as Obj | undefined;
    if (!first) return null; // a list of non-records is no export we know
    if (Object.keys(first).some(k => /^(baseline|human|agent)_/.test(k) || k === 'agent_name')) return 'hf-records';
    return 'export';
  }
  if (!isObj(v)) return null;
  // A run the host refused never started: it is no attempt (the Runs view shows the refusal from its run.json).
  if (v.schema === 'bench-triage.run/v1' && v.status === 'refused') return 'refused-run';
  if (Array.isArray(v.results) && ('total_commits' in v || 'completed' in v || 'total' in v)) return 'progress-log';
  if ('generated_at' in v && ('results' in v || 'summary' in v)) return 'report';
  if ('title' in v && 'findings' in v) return 'report';
  // AIPerf v0.1.1 also keeps its metrics under `records`, beside its `input_config`.
  if ('_meta' in v || ('records' in v && !isObj(v.input_config))) return 'hf-records';
  if (/(^|\/)(exports|hf_export)\//.test(path)) return 'export';
  if ('success_with_agent' in v || 'success_no_agent' in v) return 'export';
  const keys = Object.keys(v);
  if (keys.length > 3 && keys.every(k => /^[0-9a-f]{7,40}$/.test(k))) return 'mapping';
  return null;
}
