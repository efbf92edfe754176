import { dict } from '../model';
import { lengthRange, workloadNumber, type Workload, type WorkloadKey } from '../model';
import { parsePerfCommand, type ParsedPerfCommand } from './parse';

/**
 * The workload a perf command runs, in the shared vocabulary (`core/model/workload.ts`), with the
 * defaults of its tool and form made explicit: `vllm bench serve` defaults to the random dataset,
 * the old script to ShareGPT; the CLI's `--input-len` is the random dataset's input length;
 * `--random-range-ratio` draws [L·(1−r), L·(1+r)] in the CLI (and 2025 scripts) but [L·r, L] in
 * 2024 scripts and SGLang. Engine flags and any other flag that is not only about where results go
 * are kept by name (`--dtype`), so that every difference is seen.
 */
export interface CommandWorkload {
  /** serving | throughput | latency | prefix_caching | the script's name. */
  kind: string;
  tool: string;
  values: Workload;
  /** Flags outside the shared vocabulary, by name (value `true` for a switch). */
  flags: Record<string, string>;
}

/** Flags that do not change the workload: where results go, how the client reaches the server, logging. */
const NOT_WORKLOAD = new Set([
  '--model',
  '--tokenizer',
  '--served-model-name',
  '--host',
  '--port',
  '--base-url',
  '--save-result',
  '--save-detailed',
  '--append-result',
  '--result-dir',
  '--result-filename',
  '--output-file',
  '--output-details',
  '--output-json',
  '--metadata',
  '--label',
  '--tag',
  '--disable-tqdm',
  '--trust-remote-code',
  '--download-dir',
  '--disable-log-stats',
  '--disable-log-requests',
  '--profile',
  '--profile-result-dir',
  '--percentile-metrics',
  '--metric-percentiles',
  '--goodput',
  '--ready-check-timeout-sec',
  '--request-id-prefix',
  '--insecure',
  '--plot-timeline',
  '--timeline-itl-thresholds',
  '--plot-dataset-stats',
  '--header',
  '--tokenizer-mode',
]);
const SHORT: Record<string, string> = { '-tp': '--tensor-parallel-size', '--dataset': '--dataset-path' };

/** Workloads by command text: a folder's runs share a handful of commands. */
const cache = new Map<string, CommandWorkload | null>();

export function commandWorkload(command: string): CommandWorkload | null {
  let w = cache.get(command);
  if (w === undefined) {
    if (cache.size > 5000) cache.clear();
    cache.set(command, (w = compute(parsePerfCommand(command))));
  }
  return w;
}

function compute(p: ParsedPerfCommand): CommandWorkload | null {
  if (!p.script) return null;
  const given = new Map<string, string>();
  for (const f of p.flags) given.set(SHORT[f.name] ?? f.name, f.value?.text ?? 'true');
  const tool = p.script;
  const values: Workload = dict();
  const flags: Record<string, string> = dict();
  const used = new Set<string>();
  /** A flag's value (marked used), else its default in this tool's table, else null. */
  const val = (...names: string[]): { value: string; from: string } | null => {
    for (const n of names)
      if (given.has(n)) {
        used.add(n);
        return { value: given.get(n)!, from: n };
      }
    const d = names.map(n => p.flagTable?.[n]?.default).find(x => x !== undefined);
    return d !== undefined ? { value: d, from: `default of ${tool}` } : null;
  };
  const set = (k: WorkloadKey, v: { value: string; from: string } | null, fmt: (s: string) => string = norm) => {
    if (v) values[k] = { value: fmt(v.value), from: v.from };
  };
  const cli = p.form === 'cli',
    sglang = p.form === 'sglang';
  if (p.kind === 'serving') serving(p, val, set, given, cli, sglang, tool);
  else if (p.kind === 'throughput') {
    const path = val('--dataset-path');
    let name = val('--dataset-name');
    // Without a dataset path the throughput benchmark runs the random dataset (throughput.py @ 1a91bc2d).
    if (!path && name?.from !== '--dataset-name' && name?.value !== 'prefix_repetition') name = { value: 'random', from: `${tool} without a dataset path` };
    set('dataset', name && path ? { value: `${name.value} (${basename(path.value)})`, from: `${name.from}, --dataset-path` } : name, s => s);
    set('input_len', val('--input-len'));
    set('output_len', val('--output-len'));
    set('prefix_len', val('--prefix-len'));
    set('num_prompts', val('--num-prompts'));
    set('n', val('--n'));
    used.add('--random-range-ratio');
    const r = val('--random-range-ratio');
    if (r && r.from === '--random-range-ratio' && values.input_len)
      values.input_len = { value: `${values.input_len.value}, range ratio ${norm(r.value)}`, from: `--input-len, ${r.from}` };
  } else if (p.kind === 'latency') {
    set('input_len', val('--input-len'));
    set('output_len', val('--output-len'));
    set('batch_size', val('--batch-size'));
    set('n', val('--n'));
    set('num_iters', val('--num-iters'));
  } else if (p.kind === 'prefix_caching') {
    set('dataset', val('--dataset-path'), basename);
    set('num_prompts', val('--num-prompts'));
    set('output_len', val('--output-len'));
    set('prefix_len', val('--prefix-len'));
  }
  for (const [name, value] of given) {
    if (used.has(name) || NOT_WORKLOAD.has(name)) continue;
    flags[name] = name === '--dataset-path' ? basename(value) : value;
  }
  return { kind: p.kind ?? p.script, tool, values, flags };
}

type Val = (...names: string[]) => { value: string; from: string } | null;
type Set = (k: WorkloadKey, v: { value: string; from: string } | null, fmt?: (s: string) => string) => void;

function serving(p: ParsedPerfCommand, val: Val, set: Set, given: Map<string, string>, cli: boolean, sglang: boolean, tool: string): void {
  const path = val('--dataset-path');
  const name = val('--dataset-name') ?? { value: 'sharegpt', from: `default of ${tool}` };
  const ds = name.value;
  set('dataset', path ? { value: `${ds} (${basename(path.value)})`, from: `${name.from}, --dataset-path` } : name, s => s);
  const len = (...flags: string[]) => val(...flags);
  if (ds === 'random' || ds === 'random-ids') {
    const li = len('--random-input-len', ...(cli ? ['--input-len'] : []));
    const lo = len('--random-output-len', ...(cli ? ['--output-len'] : []));
    const r = val('--random-range-ratio');
    const ratio = r ? Number(r.value) : 0;
    const explicit = r?.from === '--random-range-ratio';
    const range = (l: { value: string; from: string } | null, input: boolean) => {
      if (!l) return null;
      const L = Number(l.value);
      if (!Number.isFinite(L)) return l;
      const from = explicit ? `${l.from}, --random-range-ratio` : l.from;
      if (sglang) return { value: lengthRange(input ? Math.max(Math.floor(L * ratio), 1) : Math.floor(L * ratio), L), from };
      if (!explicit || !Number.isFinite(ratio)) return { value: workloadNumber(L), from };
      // The CLI draws symmetrically; an old script's meaning depends on its year, said in the value.
      if (cli) return { value: lengthRange(Math.floor(L * (1 - ratio)), Math.ceil(L * (1 + ratio))), from };
      return { value: `${workloadNumber(L)}, range ratio ${workloadNumber(ratio)} (script: [L·r, L] in 2024, L·(1±r) from 2025)`, from };
    };
    set('input_len', range(li, true), s => s);
    set('output_len', range(lo, false), s => s);
    if (!sglang) set('prefix_len', val('--random-prefix-len'));
  } else if (ds === 'sonnet') {
    set('input_len', val('--sonnet-input-len'));
    set('output_len', val('--sonnet-output-len'));
    set('prefix_len', val('--sonnet-prefix-len'));
  } else if (ds === 'sharegpt') {
    set('output_len', val('--sharegpt-output-len', ...(cli ? ['--output-len'] : [])) ?? { value: 'from the dataset', from: `default of ${tool}` }, s => s);
  } else if (ds === 'hf')
    set('output_len', val('--hf-output-len', ...(cli ? ['--output-len'] : [])) ?? { value: 'from the dataset', from: `default of ${tool}` }, s => s);
  else if (ds === 'custom') set('output_len', val('--custom-output-len', ...(cli ? ['--output-len'] : [])));
  for (const k of ['--random-input-len', '--random-output-len', '--random-range-ratio', '--random-prefix-len', '--input-len', '--output-len']) val(k); // read: not a flag of its own
  for (const k of ['--sonnet-input-len', '--sonnet-output-len', '--sonnet-prefix-len', '--sharegpt-output-len', '--hf-output-len', '--custom-output-len'])
    if (given.has(k)) val(k);
  set('num_prompts', val('--num-prompts'));
  const rate = val('--request-rate') ?? { value: 'inf', from: `default of ${tool}` };
  set('request_rate', rate);
  const burst = val('--burstiness');
  if (norm(rate.value) !== 'inf' && !sglang) set('burstiness', burst);
  const conc = val('--max-concurrency');
  set('max_concurrency', conc ?? { value: 'none', from: `default of ${tool}` });
  const ramp = val('--ramp-up-strategy');
  if (ramp && ramp.from === '--ramp-up-strategy')
    set(
      'ramp_up',
      { value: `${ramp.value} ${val('--ramp-up-start-rps')?.value ?? '?'}→${val('--ramp-up-end-rps')?.value ?? '?'} req/s`, from: '--ramp-up-strategy' },
      s => s,
    );
  const backend = val('--backend');
  const endpoint = val('--endpoint');
  if (sglang)
    set(
      'endpoint',
      backend
        ? {
            value: /^sglang(-native)?$/.test(backend.value) ? 'sglang /generate' : /-chat$/.test(backend.value) ? '/v1/chat/completions' : '/v1/completions',
            from: backend.from,
          }
        : null,
      s => s,
    );
  else
    set(
      'endpoint',
      endpoint?.from === '--endpoint'
        ? endpoint
        : backend && /-chat$/.test(backend.value)
          ? { value: '/v1/chat/completions', from: backend.from }
          : backend && !/^(vllm|openai)$/.test(backend.value)
            ? { value: backend.value, from: backend.from }
            : { value: '/v1/completions', from: backend?.from ?? `default of ${tool}` },
      s => s,
    );
  // The old script always sent temperature 0; `vllm bench serve` sends none unless told (vllm #32723).
  const temp = val('--temperature');
  set(
    'temperature',
    temp ?? (cli ? { value: "the server's default", from: `default of ${tool}` } : sglang ? null : { value: '0', from: `default of ${tool}` }),
    s => (s === "the server's default" ? s : norm(s)),
  );
  set('top_p', given.has('--top-p') ? val('--top-p') : null);
  set('top_k', given.has('--top-k') ? val('--top-k') : null);
  // ignore_eos: a switch in vLLM's clients (automatic for random datasets in the CLI since #28227); on by default in SGLang's.
  if (sglang)
    set(
      'ignore_eos',
      { value: given.has('--disable-ignore-eos') ? 'no' : 'yes', from: given.has('--disable-ignore-eos') ? '--disable-ignore-eos' : `default of ${tool}` },
      s => s,
    );
  else
    set(
      'ignore_eos',
      given.has('--ignore-eos')
        ? { value: 'yes', from: '--ignore-eos' }
        : cli && (ds === 'random' || ds === 'random-mm')
          ? { value: 'yes', from: `${tool} with a random dataset` }
          : { value: 'no', from: `default of ${tool}` },
      s => s,
    );
  val('--ignore-eos');
  val('--disable-ignore-eos');
  set('seed', val('--seed'));
  void p;
}

/** A number written as a flag value, in the workload's spelling (`1.0` → `1`, `inf`). */
function norm(s: string): string {
  const t = s.trim();
  if (/^[+]?inf(inity)?$/i.test(t)) return 'inf';
  const n = Number(t);
  return t !== '' && Number.isFinite(n) ? workloadNumber(n) : t;
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}
