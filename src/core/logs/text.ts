/** ANSI escape sequences, real (\x1b) or written out in Python byte dumps (\\x1b). */
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\\x1b\[[0-9;?]*[A-Za-z]/g;
export const hasAnsi = (s: string): boolean => {
  ANSI.lastIndex = 0;
  return ANSI.test(s);
};
export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/**
 * Python `b'…'` byte-literal dumps (`Failed to start vLLM server\nb'…\\n…'`) hold a whole log on
 * one line with escaped newlines; decode them so the log reads as lines again (research §7.11).
 */
export function decodePythonBytesDumps(s: string): string {
  return s.replace(/\bb(['"])((?:\\.|(?!\1)[^\\\n])*)\1/g, (whole, _q: string, body: string) => {
    if (!/\\n/.test(body)) return whole;
    return body.replace(/\\(x[0-9a-fA-F]{2}|[nrt'"\\])/g, (_m, e: string) => {
      if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
      return ({ n: '\n', r: '\r', t: '\t', "'": "'", '"': '"', '\\': '\\' } as Record<string, string>)[e];
    });
  });
}
