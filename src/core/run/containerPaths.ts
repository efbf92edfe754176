/** Paths inside the benchmark container (the plan names them; the runner puts files there). */
export const C = {
  helper: '/bench-triage/bt_helper.py',
  patch: '/bench-triage/agent.patch',
  /** One file per secret (mode 0400): the helper puts them in each phase's environment. */
  secrets: '/bench-triage/secrets',
  files: '/bench-triage/files',
  /** The helper's spool of each phase's output, exit code and launch marker. */
  logs: '/bench-triage/logs',
  src: '/bench-triage/src',
  benchmarks: '/bench-triage/src/benchmarks',
  results: '/results',
} as const;
