import { tokenize, type Token } from './tokenize';
import { flagTable, SERVER_ONLY, VERSIONED_FLAGS, versionAtLeast, type FlagDoc, type ScriptForm, type ScriptKind } from './flags';
import { modelSize } from './models';
import { reservedEnvProblem } from './reservedEnv';

export interface Flag {
  name: string;
  nameTok: Token;
  value: Token | null;
}

export interface PerfProblem {
  code:
    | 'placeholder'
    | 'flag-version'
    | 'shell-operator'
    | 'no-model'
    | 'unknown-flag'
    | 'server-flag'
    | 'unknown-script'
    | 'tensor-parallel'
    | 'model-too-large'
    | 'blocked-model'
    | 'version-bug'
    | 'positional'
    | 'reserved-env'
    | 'syntax';
  severity: 'error' | 'warning' | 'information';
  message: string;
  /** Offsets in the command string. */
  start: number;
  end: number;
  data?: Record<string, unknown>;
}

export interface ParsedPerfCommand {
  script: string | null;
  kind: ScriptKind | null;
  /** vLLM's old script, the `vllm bench` CLI, or SGLang's client. */
  form: ScriptForm | null;
  /** The flags this client takes (by kind and form); null when there is no table for it. */
  flagTable: Record<string, FlagDoc> | null;
  argv: string[];
  flags: Flag[];
  model: string | null;
  tensorParallel: number;
  /** `NAME=value` words before the program (`VLLM_USE_V1=1 python …`): the run's environment, kept and shown. */
  env: Array<{ name: string; value: string }>;
  problems: PerfProblem[];
}

export interface CheckOptions {
  /** GPUs of the configured host (default 1). */
  hostGpus?: number;
  /** Models refused outright (blocked / gated), by substring, case-insensitive. */
  blockedModels?: string[];
  /** vLLM version the command will run on, when known. */
  vllmVersion?: string | null;
}

/** Upper-case words, `<…>`, `{…}` and `$VARS` standing where a value should be. */
export const PLACEHOLDER = /^(?:[A-Z][A-Z0-9_]{1,}|<[^>]+>|\{[^}]+\}|\$\{?[A-Za-z_]\w*\}?)$/;
const UPPER_VALUES = new Set(['FLASH_ATTN', 'XFORMERS', 'FLASHINFER', 'TORCH_SDPA', 'FP8', 'INT8', 'AWQ', 'GPTQ']);

function scriptOf(tokens: Token[]): { script: string; kind: ScriptKind | null; form: ScriptForm | null; argStart: number } | null {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i].text;
    const m = /(?:^|\/)benchmark_(serving|latency|throughput|prefix_caching)\.py$/.exec(t);
    if (m) return { script: `benchmark_${m[1]}.py`, kind: m[1] as ScriptKind, form: 'script', argStart: i + 1 };
    if (t === 'sglang.bench_serving' || /(?:^|\/)sglang\/bench_serving\.py$/.test(t))
      return { script: 'sglang.bench_serving', kind: 'serving', form: 'sglang', argStart: i + 1 };
    if (/(?:^|\/)\w+\.py$/.test(t)) return { script: t.slice(t.lastIndexOf('/') + 1), kind: null, form: null, argStart: i + 1 };
    // `vllm bench <sub>` and `python -m vllm.entrypoints.cli.main bench <sub>`
    if (t === 'bench' && i + 1 < tokens.length) {
      const sub = tokens[i + 1].text;
      const kind = ({ serve: 'serving', latency: 'latency', throughput: 'throughput' } as Record<string, ScriptKind>)[sub] ?? null;
      return { script: `vllm bench ${sub}`, kind, form: 'cli', argStart: i + 2 };
    }
  }
  return null;
}

/** Parses and checks a perf command. It is never run through a shell. */
export function parsePerfCommand(cmd: string, opts: CheckOptions = {}): ParsedPerfCommand {
  const t = tokenize(cmd);
  const problems: PerfProblem[] = [];
  if (t.error) problems.push({ code: 'syntax', severity: 'error', message: t.error, start: 0, end: cmd.length });
  // A perf command is one line of printable text: a line break would split it (the words after it
  // lost, or run as a second command by a shell), other control characters hide what runs.
  const ctl = /[\r\n]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(cmd);
  if (ctl)
    problems.push({
      code: 'syntax',
      severity: 'error',
      start: ctl.index,
      end: ctl.index + 1,
      message: `${ctl[0] === '\n' || ctl[0] === '\r' ? 'line break' : `control character U+${ctl[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`} at offset ${ctl.index}: a perf command is one line of plain text; refused rather than cut`,
    });
  for (const op of t.operators)
    problems.push({
      code: 'shell-operator',
      severity: 'error',
      message: `shell operator "${op.text}" is not allowed: perf commands are run as argv, never through a shell`,
      start: op.start,
      end: op.end,
    });
  const s = scriptOf(t.tokens);
  const flags: Flag[] = [];
  const argv = t.tokens.map(x => x.text);
  if (!s) {
    problems.push({
      code: 'unknown-script',
      severity: 'warning',
      message: 'not a benchmark command this tool knows (benchmarks/benchmark_*.py, `vllm bench …` or `python -m sglang.bench_serving`)',
      start: 0,
      end: cmd.length,
    });
    return { script: null, kind: null, form: null, flagTable: null, argv, flags, model: null, tensorParallel: 1, env: [], problems };
  }
  const table = flagTable(s.kind, s.form);
  const env: ParsedPerfCommand['env'] = [];
  for (const tok of t.tokens) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(tok.text);
    if (!m) break;
    env.push({ name: m[1], value: m[2] });
    const reserved = reservedEnvProblem(m[1]);
    if (reserved) problems.push({ code: 'reserved-env', severity: 'error', message: reserved, start: tok.start, end: tok.end });
  }
  for (let i = s.argStart; i < t.tokens.length; i++) {
    const tok = t.tokens[i];
    if (!tok.text.startsWith('-') || /^-\d/.test(tok.text)) {
      // A word no flag takes: the benchmark clients take no positional arguments (argparse refuses them), and a rerun would not pass it on.
      problems.push({
        code: 'positional',
        severity: 'error',
        message: /^\[--?[\w-]+\]$/.test(tok.text)
          ? `"${tok.text}" is the usage text's way of writing an optional flag, not an argument: write ${tok.text.slice(1, -1)} or leave it out`
          : `"${tok.text.slice(0, 80)}" is a positional argument; ${s.script} takes none (give it to the flag it belongs to)`,
        start: tok.start,
        end: tok.end,
      });
      continue;
    }
    const eq = tok.text.indexOf('=');
    const name = (eq > 0 ? tok.text.slice(0, eq) : tok.text).replace(/_/g, '-');
    const nameTok = { text: name, start: tok.start, end: eq > 0 ? tok.start + eq : tok.end };
    let value: Token | null = null;
    if (eq > 0) value = { text: tok.text.slice(eq + 1), start: tok.start + eq + 1, end: tok.end };
    else if (
      i + 1 < t.tokens.length &&
      !t.tokens[i + 1].text.startsWith('--') &&
      // A switch may take an optional boolean (`--enable-chunked-prefill False`: argparse's nargs='?').
      ((table?.[name]?.takesValue ?? true) || /^(?:true|false|yes|no|on|off|0|1)$/i.test(t.tokens[i + 1].text))
    )
      value = t.tokens[++i];
    flags.push({ name, nameTok, value });
    if (table && !(name in table)) {
      const server = s.kind === 'serving' && SERVER_ONLY.has(name);
      problems.push(
        server
          ? {
              code: 'server-flag',
              severity: 'error',
              message: `${name} is an engine argument: ${s.script} talks to a running server and rejects it ("unrecognized arguments"); pass it to the server instead`,
              start: nameTok.start,
              end: value?.end ?? nameTok.end,
              data: { flag: name },
            }
          : {
              code: 'unknown-flag',
              severity: 'warning',
              message: `${name} is not a flag of ${s.script}`,
              start: nameTok.start,
              end: nameTok.end,
              data: { flag: name },
            },
      );
    }
    for (const vf of VERSIONED_FLAGS) {
      if (vf.flag === name && opts.vllmVersion && versionAtLeast(opts.vllmVersion, vf.since)) {
        problems.push({
          code: 'flag-version',
          severity: vf.severity,
          message: `${name} ${vf.note}; this command runs on vLLM ${opts.vllmVersion}`,
          start: nameTok.start,
          end: nameTok.end,
          data: { flag: name },
        });
      }
    }
    if (value && PLACEHOLDER.test(value.text) && !UPPER_VALUES.has(value.text)) {
      problems.push({
        code: 'placeholder',
        severity: 'error',
        message: `placeholder ${value.text} left in the perf command (${name} needs a real value)`,
        start: value.start,
        end: value.end,
        data: { placeholder: value.text, flag: name },
      });
    }
  }
  const modelFlag = flags.find(f => f.name === '--model');
  const model = modelFlag?.value && !PLACEHOLDER.test(modelFlag.value.text) ? modelFlag.value.text : null;
  // SGLang's client and `vllm bench serve` ask the server which model it serves; the others need one.
  const asksServer = s.form === 'sglang' || (s.form === 'cli' && s.kind === 'serving');
  if (!modelFlag)
    problems.push(
      asksServer
        ? {
            code: 'no-model',
            severity: 'warning',
            message: `no --model: ${s.script} uses the first model the server lists, and a rerun cannot tell which server to start`,
            start: 0,
            end: cmd.length,
          }
        : { code: 'no-model', severity: 'error', message: `no --model: ${s.script} would fall back to a default model`, start: 0, end: cmd.length },
    );
  const tpFlag = flags.find(f => f.name === '--tensor-parallel-size' || f.name === '-tp');
  const tensorParallel = tpFlag?.value && /^[1-9]\d{0,3}$/.test(tpFlag.value.text) ? Number(tpFlag.value.text) : 1;
  if (tpFlag && !(tpFlag.value && /^[1-9]\d{0,3}$/.test(tpFlag.value.text)))
    problems.push({
      code: 'tensor-parallel',
      severity: 'error',
      message: `${tpFlag.name} ${tpFlag.value ? `"${tpFlag.value.text.slice(0, 40)}"` : 'without a value'}: a tensor-parallel size is a whole number of GPUs, 1 or more`,
      start: tpFlag.nameTok.start,
      end: tpFlag.value?.end ?? tpFlag.nameTok.end,
    });
  const gpus = opts.hostGpus ?? 1;
  if (tpFlag && tensorParallel > gpus)
    problems.push({
      code: 'tensor-parallel',
      severity: 'error',
      message: `tensor-parallel size ${tensorParallel} needs ${tensorParallel} GPUs; the configured host has ${gpus}`,
      start: tpFlag.nameTok.start,
      end: tpFlag.value?.end ?? tpFlag.nameTok.end,
    });
  if (model && modelFlag?.value) {
    const size = modelSize(model);
    if (size && size.h100s > Math.max(gpus, tensorParallel))
      problems.push({
        code: 'model-too-large',
        severity: 'warning',
        message: `${model} (~${size.params} B parameters, ~${Math.round(size.gpuMemGB)} GB in bf16) needs about ${size.h100s} H100s; ${Math.max(gpus, tensorParallel)} available`,
        start: modelFlag.value.start,
        end: modelFlag.value.end,
      });
    const blocked = (opts.blockedModels ?? []).find(b => model.toLowerCase().includes(b.toLowerCase()));
    if (blocked)
      problems.push({
        code: 'blocked-model',
        severity: 'error',
        message: `${model} is on the blocked / gated list (${blocked})`,
        start: modelFlag.value.start,
        end: modelFlag.value.end,
      });
  }
  if (s.kind === 'serving' && opts.vllmVersion && /^0\.6\.[34](?:\D|$)/.test(opts.vllmVersion)) {
    problems.push({
      code: 'version-bug',
      severity: 'error',
      message: `vLLM ${opts.vllmVersion} cannot run serving benchmarks (port-binding bug #8791): use an offline benchmark (benchmark_throughput.py / benchmark_latency.py)`,
      start: 0,
      end: cmd.length,
      data: { version: opts.vllmVersion },
    });
  }
  return { script: s.script, kind: s.kind, form: s.form, flagTable: table, argv, flags, model, tensorParallel, env, problems };
}

/** The offline command closest to a serving one (the #8791 quick fix). */
export function toOfflineCommand(cmd: string): string | null {
  const p = parsePerfCommand(cmd);
  if (p.kind !== 'serving' || !p.model) return null;
  const keep = p.flags.filter(f => ['--model', '--tensor-parallel-size', '-tp', '--dtype', '--trust-remote-code', '--max-model-len'].includes(f.name));
  const input = p.flags.find(f => f.name === '--random-input-len' || f.name === '--sonnet-input-len')?.value?.text ?? '1024';
  const output = p.flags.find(f => f.name === '--random-output-len' || f.name === '--sonnet-output-len')?.value?.text ?? '128';
  const n = p.flags.find(f => f.name === '--num-prompts')?.value?.text ?? '1000';
  const args = keep.map(f => (f.value ? `${f.name} ${f.value.text}` : f.name)).join(' ');
  return `python benchmarks/benchmark_throughput.py ${args} --input-len ${input} --output-len ${output} --num-prompts ${n}`;
}
