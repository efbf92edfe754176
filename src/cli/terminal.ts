import { stripAnsi } from '../core/logs';

/** Text from data printed to a terminal: no escape sequences, no control characters (they could rewrite the screen). */
export const clean = (s: string): string => stripAnsi(s).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');

/** Words as a POSIX shell would need them: quoted where a space, quote or other special character would change them. */
export const shellWords = (argv: readonly string[]): string =>
  argv.map(w => (/^[A-Za-z0-9_./:=,@%+-]+$/.test(w) ? w : `'${clean(w).replace(/'/g, `'\\''`)}'`)).join(' ');
