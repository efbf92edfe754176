import type { RunStatus } from '../model';

/** Maps every status string the pipelines wrote (research §5.1, "Statuses seen") to the small enum. */
export function mapStatus(original: unknown): RunStatus {
  const s = typeof original === 'string' ? original.trim().toLowerCase() : '';
  if (s === 'success' || s === 'ok' || s === 'completed' || s === 'succeeded') return 'success';
  if (s === 'timeout' || s === 'timed_out') return 'timeout';
  if (s === 'skipped' || s === 'no_patch' || s === 'blocked_model' || s === 'no_perf_command') return 'skipped';
  if (s === 'not_run' || s === '') return 'not_run';
  // error, exception, baseline_failed, human_failed, agent_failed, version_bug, incompatible, no_metrics,
  // no_wheel, wheel_install_failed, human_wheel_failed, failed …
  return 'failed';
}
