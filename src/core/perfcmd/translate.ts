import { parsePerfCommand, type ParsedPerfCommand } from './parse';
import { flagTable, type ScriptKind } from './flags';
import { commandWorkload } from './workload';

/**
 * A vLLM perf command in the other form: the old script (`benchmarks/benchmark_<kind>.py`) for a
 * commit that predates `vllm bench`, the CLI for one whose scripts are stubs (vLLM #24411). The
 * defaults that differ between the forms are made explicit, so that baseline, human and agent run
 * the same workload whichever form each commit has; what cannot be carried over is said.
 */
export interface Translation {
  from: 'script' | 'cli';
  to: 'script' | 'cli';
  kind: ScriptKind;
  /** The command in the target form (argv, never a shell). */
  argv: string[];
  command: string;
  /** What was translated, made explicit or dropped, in words. */
  notes: string[];
  /** Workload differences the translation could not remove (each a field and both values). */
  differences: string[];
}

const SCRIPT_OF: Partial<Record<ScriptKind, string>> = {
  serving: 'benchmarks/benchmark_serving.py',
  throughput: 'benchmarks/benchmark_throughput.py',
  latency: 'benchmarks/benchmark_latency.py',
};
const CLI_OF: Partial<Record<ScriptKind, string>> = { serving: 'serve', throughput: 'throughput', latency: 'latency' };

/** A word that needs quoting to be read back as one argument. */
const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

export function translateCommand(command: string, to: 'script' | 'cli'): Translation | { error: string } {
  const p = parsePerfCommand(command);
  if (!p.kind || (p.form !== 'script' && p.form !== 'cli'))
    return { error: `${p.script ?? 'this command'} is not a vLLM benchmark with a script and a CLI form` };
  if (!SCRIPT_OF[p.kind]) return { error: `${p.script} has no \`vllm bench\` form` };
  const from = p.form;
  if (from === to) return { from, to, kind: p.kind, argv: p.argv, command, notes: [], differences: [] };
  const notes: string[] = [];
  const args = to === 'cli' ? toCli(p, notes) : toScript(p, notes);
  const head = to === 'cli' ? ['vllm', 'bench', CLI_OF[p.kind]!] : ['python3', SCRIPT_OF[p.kind]!];
  const argv = [...head, ...args];
  const text = argv.map(quote).join(' ');
  return { from, to, kind: p.kind, argv, command: text, notes, differences: workloadDiff(command, text) };
}

type Pair = [string, string | null];
const pairs = (p: ParsedPerfCommand): Pair[] => p.flags.map(f => [f.name, f.value?.text ?? null]);
const has = (ps: Pair[], n: string) => ps.some(([k]) => k === n);
const get = (ps: Pair[], n: string) => ps.find(([k]) => k === n)?.[1] ?? null;

/** The old script's command as `vllm bench`: its defaults made explicit where the CLI's differ. */
function toCli(p: ParsedPerfCommand, notes: string[]): string[] {
  let ps = pairs(p);
  const target = flagTable(p.kind, 'cli')!;
  if (has(ps, '--dataset')) {
    ps = ps.map(([k, v]) => (k === '--dataset' ? ['--dataset-path', v] : [k, v]));
    notes.push('--dataset (the deprecated ShareGPT path) is --dataset-path');
  }
  if (p.kind === 'serving' || p.kind === 'throughput') {
    if (!has(ps, '--dataset-name') && (p.kind === 'serving' || has(ps, '--dataset-path'))) {
      ps.push(['--dataset-name', 'sharegpt']);
      notes.push("--dataset-name sharegpt made explicit: the script's default (the CLI's is random)");
    }
  }
  if (p.kind === 'serving') {
    if (!has(ps, '--temperature')) {
      ps.push(['--temperature', '0']);
      notes.push('--temperature 0 made explicit: the script always asked for greedy sampling (the CLI sends none)');
    }
    const ds = get(ps, '--dataset-name');
    if ((ds === 'random' || ds === 'random-mm') && !has(ps, '--ignore-eos'))
      notes.push('the CLI ignores EOS on random datasets whatever the flags; the script stopped at EOS (not the same workload on outputs that end early)');
    if (has(ps, '--random-range-ratio'))
      notes.push('--random-range-ratio kept: the CLI draws L·(1±r); scripts before 2025 drew [L·r, L] (check which one the baseline used)');
  }
  return keep(ps, target, 'vllm bench', notes);
}

/** `vllm bench` as the old script: the CLI's aliases and defaults spelled the script's way. */
function toScript(p: ParsedPerfCommand, notes: string[]): string[] {
  let ps = pairs(p);
  const target = flagTable(p.kind, 'script')!;
  if (p.kind === 'serving') {
    const ds = get(ps, '--dataset-name') ?? 'random';
    if (!has(ps, '--dataset-name')) {
      ps.push(['--dataset-name', 'random']);
      notes.push("--dataset-name random made explicit: the CLI's default (the script's is sharegpt)");
    }
    const outFlag: Record<string, string> = {
      random: '--random-output-len',
      sharegpt: '--sharegpt-output-len',
      hf: '--hf-output-len',
      custom: '--custom-output-len',
    };
    ps = ps.flatMap(([k, v]): Pair[] => {
      if (k === '--input-len') {
        notes.push('--input-len is the random dataset’s --random-input-len');
        return ds === 'random' ? [['--random-input-len', v]] : [];
      }
      if (k === '--output-len') {
        const o = outFlag[ds];
        notes.push(o ? `--output-len is ${o} for the ${ds} dataset` : `--output-len has no meaning for the ${ds} dataset in the script: dropped`);
        return o ? [[o, v]] : [];
      }
      return [[k, v]];
    });
    if ((ds === 'random' || ds === 'random-mm') && !has(ps, '--ignore-eos')) {
      ps.push(['--ignore-eos', null]);
      notes.push('--ignore-eos made explicit: the CLI ignores EOS on random datasets by itself');
    }
    if (!has(ps, '--temperature'))
      notes.push('no --temperature: the script asks for 0 (greedy), the CLI sent none (the server’s default): set --temperature for the same sampling');
    if (has(ps, '--num-warmups')) notes.push('--num-warmups: the script has no warm-up requests (its one test request is not measured either)');
  }
  if (p.kind === 'throughput' && !has(ps, '--dataset-path') && !has(ps, '--dataset-name')) {
    ps.push(['--dataset-name', 'random']);
    notes.push('--dataset-name random made explicit: the CLI runs the random dataset without a dataset path');
  }
  return keep(ps, target, 'the script', notes);
}

/** Flags the target takes, in order; the rest dropped, each said. */
function keep(ps: Pair[], target: Record<string, { takesValue: boolean }>, where: string, notes: string[]): string[] {
  const out: string[] = [];
  const dropped: string[] = [];
  for (const [k, v] of ps) {
    if (!(k in target) && !(k === '--input-len' || k === '--output-len')) {
      dropped.push(k);
      continue;
    }
    out.push(k);
    if (v !== null) out.push(v);
  }
  if (dropped.length) notes.push(`${[...new Set(dropped)].join(', ')}: not ${dropped.length === 1 ? 'a flag' : 'flags'} of ${where}, dropped`);
  return out;
}

/** The workload fields that still differ between the two commands (they should be none but for what the notes say). */
function workloadDiff(a: string, b: string): string[] {
  const wa = commandWorkload(a),
    wb = commandWorkload(b);
  if (!wa || !wb) return [];
  const out: string[] = [];
  for (const k of new Set([...Object.keys(wa.values), ...Object.keys(wb.values)])) {
    const x = wa.values[k as keyof typeof wa.values],
      y = wb.values[k as keyof typeof wb.values];
    if (x && y && x.value !== y.value) out.push(`${k}: ${x.value} (${x.from}) → ${y.value} (${y.from})`);
  }
  return out;
}

/** What a checkout says a commit can run: the `vllm bench` CLI, and the old script (full, a stub, or none). */
export interface BenchForms {
  cli: boolean;
  script: 'full' | 'stub' | 'absent';
  /** Flags the old script defines (from its source), when it is there. */
  scriptFlags?: readonly string[];
}

/** The form to run a command in on a commit, and why; null keeps the command as it is. */
export function formFor(p: Pick<ParsedPerfCommand, 'form' | 'kind'>, forms: BenchForms | null): { to: 'script' | 'cli'; why: string } | null {
  if (!forms || (p.form !== 'script' && p.form !== 'cli') || !p.kind || !SCRIPT_OF[p.kind]) return null;
  if (p.form === 'script' && forms.script !== 'full' && forms.cli)
    return {
      to: 'cli',
      why:
        forms.script === 'stub'
          ? 'its benchmark script is the stub that only points to `vllm bench` (vLLM #24411)'
          : 'it has no benchmark script, only `vllm bench`',
    };
  if (p.form === 'cli' && !forms.cli && forms.script === 'full') return { to: 'script', why: 'it predates `vllm bench`' };
  return null;
}
