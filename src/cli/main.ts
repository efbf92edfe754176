import { scanCommand } from './scanCommand';

const USAGE = `usage: bench-triage <command> [options]

commands:
  scan <folder> [--json] [--runs]   list every result, run and agent run found in <folder>
`;

/** Small argv parser: positional arguments and --flags; unknown flags are errors, not ignored. */
export function parseArgs(argv: string[], flags: string[]): { positional: string[]; flags: Set<string> } {
  const positional: string[] = [];
  const set = new Set<string>();
  for (const a of argv) {
    if (a.startsWith('--')) {
      if (!flags.includes(a.slice(2))) throw new UsageError(`unknown option ${a}`);
      set.add(a.slice(2));
    } else positional.push(a);
  }
  return { positional, flags: set };
}

export class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const out = (s: string) => process.stdout.write(s + '\n');
  const err = (s: string) => process.stderr.write(s);
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'scan': {
        const a = parseArgs(rest, ['json', 'runs']);
        if (a.positional.length !== 1) throw new UsageError('scan needs exactly one folder');
        return await scanCommand({ folder: a.positional[0], json: a.flags.has('json'), runs: a.flags.has('runs') }, out, err);
      }
      case undefined: case '-h': case '--help': case 'help':
        out(USAGE); return cmd ? 0 : 2;
      default:
        throw new UsageError(`unknown command ${cmd}`);
    }
  } catch (e) {
    if (e instanceof UsageError) { err(`bench-triage: ${e.message}\n${USAGE}`); return 2; }
    err(`bench-triage: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(code => { process.exitCode = code; });
}
