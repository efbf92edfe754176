import { z } from 'zod';
import type { Role, SchemaId } from '../../model';
import { mapStatus } from '../status';
import {
  ROLES,
  cleanVersion,
  compactLogs,
  draft,
  measured,
  embeddedLog,
  errorLog,
  hashOf,
  isObj,
  modeFromCommand,
  normalisedMetrics,
  num,
  roleNamedIn,
  splitCombinedError,
  str,
  zMetrics,
  zNum,
  zStr,
  type DetectContext,
  type Detector,
  type Obj,
  type RunDraft,
} from './common';

/**
 * S1 (Modal 3-way, wrapped in `{instance, result}`) and S8 (SGLang 3-way, not wrapped) share the
 * `<role>_metrics` / `<role>_raw` / `<role>_version` field layout; roles come from the prefixes.
 */
const resultFields = {
  status: z.string(),
  error: zStr,
  agent_error: zStr,
  baseline_metrics: zMetrics,
  human_metrics: zMetrics,
  agent_metrics: zMetrics,
  baseline_raw: zStr,
  human_raw: zStr,
  agent_raw: zStr,
  full_commit: zStr,
  commit: zStr,
  parent_commit: zStr,
  model: zStr,
  perf_command: zStr,
  gpu_config: zStr,
  duration_s: zNum,
  has_agent_patch: z.boolean().nullish(),
};

const S1Schema = z.looseObject({
  instance: z.looseObject({ commit_hash: zStr, commit_subject: zStr, perf_command: zStr }),
  result: z.looseObject(resultFields),
});
const S8Schema = z.looseObject(resultFields);

/** Phase prefixes of the Modal error strings (research §4.8). */
function failedRoles(status: string, error: string | null, agentError: string | null): Map<Role, string | null> {
  const out = new Map<Role, string | null>();
  const combined = splitCombinedError(error);
  for (const [r, msg] of combined) out.set(r, msg);
  if (out.size === 0) {
    if (status === 'baseline_failed' || status === 'version_bug') out.set('baseline', error);
    else if (status === 'human_failed' || status === 'human_wheel_failed') out.set('human', error);
    else if (status === 'agent_failed') out.set('agent', error);
    else if (error) {
      const r = roleNamedIn(error);
      if (r) out.set(r, error);
    }
  }
  if (agentError) out.set('agent', agentError);
  return out;
}

function normaliseThreeWay(result: Obj, instance: Obj, schema: SchemaId, base: string, ctx: DetectContext, source: string): RunDraft[] {
  const commit = hashOf(result.full_commit, instance.commit_hash, result.commit_hash, result.commit);
  if (!commit) return [];
  const status = String(result.status);
  const error = str(result.error);
  const agentError = str(result.agent_error);
  const command = str(result.perf_command) ?? str(instance.perf_command);
  const agent = str(result.agent_name) ?? ctx.folderAgent;
  const named = failedRoles(status, error, agentError);
  const recordFailed = mapStatus(status) !== 'success';
  const out: RunDraft[] = [];
  let blamed = named.size > 0;

  for (const role of ROLES) {
    const m = normalisedMetrics([result[`${role}_metrics`]], {}, [`${base}${role}_metrics.`]);
    const hasMetrics = Object.keys(m.metrics).length > 0;
    let runStatus: RunDraft['status'];
    let runError: string | null = null;
    let errorField: string | null = null;
    if (named.has(role)) {
      runStatus = status === 'timeout' ? 'timeout' : 'failed';
      runError = named.get(role) ?? error;
      errorField = role === 'agent' && agentError && runError === agentError ? `${base}agent_error` : runError ? `${base}error` : null;
    } else if (hasMetrics) runStatus = 'success';
    else if (recordFailed && !blamed) {
      // Nothing names the phase: the first phase without data is where the record stopped.
      runStatus = mapStatus(status) === 'skipped' ? 'skipped' : 'failed';
      runError = error;
      errorField = error ? `${base}error` : null;
      blamed = true;
    } else if (role === 'agent' && !recordFailed && result.has_agent_patch === true) {
      runStatus = 'failed';
      runError = 'Agent phase recorded no metrics and no error';
    } else continue; // this role never ran in this record
    const raw = result[`${role}_raw`];
    out.push(
      draft(
        { commit, role, source, schema, pointer: `${base}${role}_metrics`, ctx, originalStatus: status, status: runStatus },
        {
          agent: role === 'agent' ? agent : null,
          error: runError,
          errorField,
          ...measured(m),
          logs: compactLogs(
            embeddedLog(`${base}${role}_raw`, raw, schema === 'S1' ? 'head' : 'none'),
            embeddedLog(`${base}${role}_server_logs`, result[`${role}_server_logs`], 'tail'),
            runError === error ? errorLog(`${base}error`, error) : null,
            role === 'agent' ? errorLog(`${base}agent_error`, agentError) : null,
          ),
          model: str(result.model),
          command,
          benchmarkMode: modeFromCommand(command),
          gpuConfig: str(result.gpu_config),
          version: cleanVersion(result[`${role}_version`]),
          parent: hashOf(result.parent_commit),
          durationS: num(result.duration_s),
          image: str(result[`${role}_install_method`]) ? `install: ${String(result[`${role}_install_method`])}` : null,
        },
      ),
    );
  }
  return out;
}

export const S1: Detector = {
  id: 'S1',
  schema: S1Schema,
  matches: v => isObj(v.instance) && isObj(v.result) && !('patched_metrics' in v.result) && !('baseline_ms' in v.result) && !('baseline_output' in v.result),
  normalise: (v, ctx) => normaliseThreeWay(v.result, v.instance, 'S1', 'result.', ctx, 'modal'),
};

export const S8: Detector = {
  id: 'S8',
  schema: S8Schema,
  matches: v => !('instance' in v) && 'status' in v && ('baseline_metrics' in v || 'human_metrics' in v) && ('full_commit' in v || 'commit' in v),
  normalise: (v, ctx) => normaliseThreeWay(v, {}, 'S8', '', ctx, 'sglang-modal'),
};
