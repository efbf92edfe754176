/**
 * Process and logging prefixes that come before what a line states, whatever wrote it: Docker
 * timestamps, compose service names, vLLM V1 child processes (`(EngineCore_0 pid=1)`,
 * `(VllmWorker rank=0 pid=2)`, `(APIServer pid=3)`), Ray (`(RayWorkerWrapper pid=4, ip=…)`),
 * torch ranks (`[rank0]:`), vLLM levels with their source location (`ERROR 03-12 10:11:12
 * [core.py:387]`, V0 `engine.py:123]`), SGLang (`[2025-03-10 12:00:00 TP0]`) and Python logging's
 * `ERROR:root:`. Each pattern is anchored and bounded, so stripping is linear in the line.
 */
const PREFIXES: RegExp[] = [
  /^\s{0,8}\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\s{0,4}(?:[|-]\s{0,4})?(?=\S)/,
  // loguru / logging level columns: `ERROR    | module:fn:12 - `, `- name - ERROR - `
  /^\s{0,8}(?:[\w.]{1,60}\s{1,4}-\s{1,4})?(?:ERROR|INFO|WARNING|DEBUG|CRITICAL)\s{0,8}[|-]\s{0,4}(?:[\w.<>:-]{1,120}\s{1,4}-\s{1,4})?/,
  /^\s{0,8}[A-Za-z][\w.-]{0,63}\s{1,16}\|\s?/,
  /^\s{0,8}\((?:[\w.-]{1,40}\s{1,4})?(?:[\w.-]{1,20}=[\w.:-]{1,40},?\s{1,4}){0,3}pid=\d{1,10}(?:,?\s{1,4}[\w.-]{1,20}=[\w.:-]{1,40}){0,3}\)\s{0,4}/,
  /^\s{0,8}\[rank\d{1,5}\]:\s?/,
  /^\s{0,8}(?:ERROR|INFO|WARNING|WARN|DEBUG|CRITICAL|FATAL)\s{1,4}\d\d-\d\d\s{1,4}\d\d:\d\d:\d\d(?:\.\d{1,6})?\s{1,4}(?:\[[^\]\n]{1,120}\]\s{0,4}|[\w.-]{1,80}:\d{1,6}\]\s{0,4})?/,
  /^\s{0,8}\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^\]\n]{0,60}\]\s{0,4}/,
  /^\s{0,8}(?:ERROR|CRITICAL|FATAL):[\w.]{0,60}:\s{0,4}/,
  /^\s{0,8}(?:\x1b\[[\d;]{0,12}m)+/,
];
/** Beyond this, a line is looked at in its first part only (a 100 MB line is not a statement). */
export const STRUCTURE_LINE_CAP = 8192;

/** The line without its prefixes (at most 8 are removed, outermost first). */
export function stripPrefixes(line: string): { text: string; child: boolean } {
  let text = line.length > STRUCTURE_LINE_CAP ? line.slice(0, STRUCTURE_LINE_CAP) : line;
  if (text.endsWith('\r')) text = text.slice(0, -1);
  let child = false;
  for (let round = 0; round < 8; round++) {
    let changed = false;
    for (const p of PREFIXES) {
      const m = p.exec(text);
      if (m && m[0].length) {
        if (/pid=|\[rank|TP\d|DP\d|EP\d|PP\d/.test(m[0])) child = true;
        text = text.slice(m[0].length);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return { text, child };
}
