/** A word of a perf command, with its offsets in the command string. */
export interface Token {
  text: string;
  start: number;
  end: number;
}

export interface Tokenized {
  tokens: Token[];
  operators: Token[];
  error: string | null;
}

/**
 * POSIX-like word splitting with quotes, never a shell: operators (`;`, `&&`, `|`, `>`, `$(`,
 * backticks) are reported, not executed, and make the command unusable (README: Checking perf commands).
 */
export function tokenize(cmd: string): Tokenized {
  const tokens: Token[] = [];
  const operators: Token[] = [];
  let i = 0;
  while (i < cmd.length) {
    while (i < cmd.length && /\s/.test(cmd[i])) i++;
    if (i >= cmd.length) break;
    const op = /^(?:&&|\|\||[;|&<>]|\$\(|`)/.exec(cmd.slice(i, i + 2));
    if (op) {
      operators.push({ text: op[0], start: i, end: i + op[0].length });
      i += op[0].length;
      continue;
    }
    const start = i;
    let text = '';
    while (i < cmd.length && !/\s/.test(cmd[i])) {
      const c = cmd[i];
      if (c === '"' || c === "'") {
        const close = cmd.indexOf(c, i + 1);
        if (close === -1) return { tokens, operators, error: `unterminated ${c === '"' ? 'double' : 'single'} quote at offset ${i}` };
        text += cmd.slice(i + 1, close).replace(c === '"' ? /\\(["\\$`])/g : /$^/g, '$1');
        i = close + 1;
        continue;
      }
      if (/[;|&<>`]/.test(c) || (c === '$' && cmd[i + 1] === '(')) break;
      if (c === '\\' && i + 1 < cmd.length) {
        text += cmd[i + 1];
        i += 2;
        continue;
      }
      text += c;
      i++;
    }
    tokens.push({ text, start, end: i });
  }
  return { tokens, operators, error: null };
}
