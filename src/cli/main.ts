import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ReadRefused, readTextBoundedSync } from '../platform/boundedRead';
import { imageTemplatesOf } from '../core/run/plan';
import { scanCommand } from './scanCommand';
import { classifyCommand, classifyLogCommand, reportCommand } from './classifyCommands';
import { rulesTestCommand, rulesTrainCommand } from './rulesTestCommand';
import { labelCommand } from './labelCommand';
import type { CampaignArgs } from './campaignCommand';
import type * as RunnerCommands from './runnerCommands';
import { DESIGNS, type Design } from '../core/ablate/designs';
import { secretEnvOf } from './secretEnv';
import { reservedEnvProblem } from '../core/perfcmd/reservedEnv';
import { hostAddressProblem, registryProblem, splitHostUrl, type HostConfig } from '../core/run/hosts';
import { METRICS, metricDef, OVERRIDE_KEYS, type PrimaryOverride } from '../core/metrics';

/** The commands that drive Docker or git, from their own bundle beside this one (runnerCommands.ts says why). */
function runner(): typeof RunnerCommands {
  const file = join(__dirname, 'cli-runner.js');
  if (!existsSync(file)) throw new Error(`${file} is missing beside ${__filename} (an incomplete install: \`npm run build\` writes both)`);
  return (runnerLoaded = require(file) as typeof RunnerCommands);
}
let runnerLoaded: typeof RunnerCommands | null = null;

const USAGE = `usage: bench-triage <command> [options]

commands:
  scan <folder> [--json] [--runs]             every result, run and agent run found in <folder>
  classify <folder> [--json] [--tie-band N] [--rules FILE] [--metric [MODE=]KEY]... [--allow-failed-requests] [--cache DIR] [--select 'ever=wheel-missing']
                                              outcome, per-role findings with evidence, verdict on every metric, comparability
  classify-log <file>... [--json] [--rules FILE]
                                              classify plain log files (streaming)
  rules test <folder> [--json] [--rules FILE] [--tsv FILE] [--min-recall R] [--cross-validate] [--stage structure|learned]
                                              classify labelled logs ("# expected: <category>" header lines, or
                                              <folder>/expected.tsv) and <folder>/.bench-triage/labels.json: precision
                                              and recall per category and per stage (rules, structure, learned), the
                                              share given a wrong category, the misses with their candidate lines, the
                                              rules that never fired (--cross-validate: the learned stage trained
                                              without each "# source:" in turn; --stage: one stage alone)
  rules train <folder> [--out FILE]           the learned stage's model from a labelled folder (JSON)
  label <folder> --commit C --role R --category X [--agent A] [--note TEXT] | --list
                                              set a run's category by hand (<folder>/.bench-triage/labels.json): it
                                              overrides the run's category and teaches the learned stage
  report <folder> [--format md|json] [--out FILE] [--tie-band N] [--rules FILE] [--metric [MODE=]KEY]... [--include-incomparable] [--allow-failed-requests] [--cache DIR]
                                              the triage report, one section per project
                                              (--cache DIR: keep a persistent index there; the next run reads only files changed since,
                                               and classify prints its last answer again while the folder's listing and the question are unchanged)
  plan --folder F --commit C --role baseline|human|agent|all [--host H] [--gpus N] [--recipe ID]... [--agent-patch FILE] [--checkout DIR] [--json]
                                              what a run would do, checked, without running it
  run --folder F --commit C --role baseline|human|agent|all [--host URL] [--recipe ID]... [--dry-run]
      [--gpus N] [--max-parallel N] [--tls-ca F --tls-cert F --tls-key F] [--ssh-key F] [--known-hosts F] [--registry HOST[:PORT][/PATH]]
      [--checkout DIR] [--image-human T] [--image-baseline T] [--env K=V]... [--secret-env NAME]... [--server-timeout S] [--benchmark-timeout S]
                                              run on a Docker host; result paths on stdout, progress on stderr
                                              (--secret-env: the value of $NAME goes to the run masked and out of docker inspect;
                                               --registry, on a swarm: images live in the swarm's registry, builds push there, runs pull by digest)
  resume --folder F [--host URL] [host options] [--secret-env NAME]...
                                              re-attach to unfinished runs of F on the host and complete them
  build --folder F --commit C --role baseline|human [--host URL] [host options] [--checkout DIR] [--rebuild]
      [--image-human T] [--image-baseline T] [--human-base IMAGE] [--dockerfile FILE] [--build-arg K=V]... [--timeout S] [--dry-run] [--json]
                                              build the image a role runs on from the commit's source (git archive
                                              of the checkout), tagged per the image template; the engine's stream
                                              goes to F/.bench-triage/builds/<commit12>/<id>/build.log (path on stdout)
  campaign plan|start|status|cancel|resume --folder F [--select 'category=wheel-missing,agent=claude_code']
      [--repeats N] [--id ID] [--json] [--host URL]... [host options] [run options of "run"]
                                              many runs, repeats interleaved (B, H, A, B, H, A …), through a durable
                                              queue in F/.bench-triage/campaigns/<id>/ on a pool of hosts (--host
                                              repeatable; each takes as many runs at once as it has --gpus, a swarm
                                              twice that, a task per GPU waiting in the swarm for the next free one);
                                              select keys: category ever outcome agent commit project model fixability blocked verdict role
                                              (ever=X: any attempt of the commit failed with X, not only its latest)
      [--build --checkout DIR]                 a campaign of image builds instead: the images the selected commits'
                                              failures call for (fixability rebuild; role= picks roles), one per image,
                                              one at a time per host; resume builds an interrupted image again
  ablate plan --folder F [--commit C] [--agent A] [--patch agent|human] [--units files|hunks]
      [--design leave-one-out|each-alone|minimise] [--repeats N] [--max-tests N] [--gpus N] [--checkout DIR] [--json]
                                              patch ablation planned before anything runs: the patch cut into units
                                              (hunks for ≤ 12 hunks, else files; with --checkout, units that cannot
                                              apply alone on the parent merged with the one they need), the variants
                                              of the design, their interleaved runs and GPU-hours (minimise: at most);
                                              every commit of F without --commit, the others refused with a reason
  ablate start --folder F --commit C [the ablate plan options] [--host URL]... [host and run options of "campaign"]
                                              run it as a campaign (F/.bench-triage/campaigns/ablate-…/): the baseline,
                                              the full patch and each variant, repeats interleaved; minimise adds each
                                              subset delta debugging asks for and writes minimal.diff; campaign
                                              status|cancel|resume --id work on it
  ablate report --folder F [--id ID] [--format md|json] [--metric KEY] [--tie-band N] [--out FILE]
                                              each unit's effect alone and by its removal (interval, verdict), broken
                                              variants and which unit needs which, interactions
  swarm status|check --host swarm+URL [host options] [--nvidia-config FILE] [--json]
                                              status: the swarm's nodes, their state and availability, GPUs
                                              advertised and reserved, and the runs on each; check: what each node
                                              lacks of the set-up runs need, the NVIDIA runtime's swarm-resource read
                                              from each node's FILE (default /etc/nvidia-container-runtime/config.toml;
                                              exit 1 when something is missing)
`;

const HOST_OPTIONS = ['host', 'gpus', 'max-parallel', 'tls-ca', 'tls-cert', 'tls-key', 'ssh-key', 'known-hosts', 'label', 'registry'];

function hostOf(p: Parsed): HostConfig {
  const v = p.values;
  // An empty DOCKER_HOST is unset, as the docker CLI reads it.
  const raw = v.get('host') ?? (process.env.DOCKER_HOST || 'unix:///var/run/docker.sock');
  const problem = hostAddressProblem(raw);
  if (problem) throw new UsageError(`--host ${problem}`);
  const { kind, docker } = splitHostUrl(raw);
  const gpus = Number(v.get('gpus') ?? 1);
  if (!Number.isInteger(gpus) || gpus < 0) throw new UsageError(`--gpus must be a whole number (got ${v.get('gpus')})`);
  const registry = v.get('registry');
  if (registry !== undefined) {
    const bad = registryProblem(registry);
    if (bad) throw new UsageError(`--registry ${bad}`);
    if (kind !== 'swarm') throw new UsageError('--registry is for a swarm (--host swarm+…): a plain engine runs the images it has');
  }
  const tlsParts = ['tls-ca', 'tls-cert', 'tls-key'].filter(k => v.has(k));
  if (tlsParts.length && tlsParts.length !== 3) throw new UsageError('TLS needs all of --tls-ca, --tls-cert and --tls-key');
  return {
    kind,
    label: v.get('label') ?? v.get('host') ?? docker,
    docker,
    gpus,
    maxParallel: v.has('max-parallel') ? Number(v.get('max-parallel')) : undefined,
    tls: tlsParts.length ? { ca: v.get('tls-ca')!, cert: v.get('tls-cert')!, key: v.get('tls-key')! } : undefined,
    ssh: v.has('ssh-key') || v.has('known-hosts') ? { identityFile: v.get('ssh-key'), knownHostsFile: v.get('known-hosts') } : undefined,
    ...(registry ? { registry } : {}),
  };
}

/** `--env NAME=VALUE`, repeatable: plain environment for the runs (shows in docker inspect). */
function envOf(p: Parsed): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of p.lists.get('env') ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--env needs NAME=VALUE (got ${kv})`);
    const reserved = reservedEnvProblem(kv.slice(0, i));
    if (reserved) throw new UsageError(`--env ${reserved}`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

/** Ctrl-C cancels the runs (containers removed, state `cancelled`, logs kept); a second one exits. */
function interruptSignal(): AbortSignal {
  const ctl = new AbortController();
  process.on('SIGINT', () => {
    if (ctl.signal.aborted) process.exit(130);
    process.stderr.write('cancelling (Ctrl-C again to quit at once) …\n');
    ctl.abort();
  });
  process.on('SIGTERM', () => ctl.abort());
  return ctl.signal;
}

export class UsageError extends Error {}

interface Parsed {
  positional: string[];
  flags: Set<string>;
  values: Map<string, string>;
  lists: Map<string, string[]>;
}

/** Positional arguments, boolean --flags and --options with a value; anything else is an error. */
export class HelpRequested extends Error {}

export function parseArgs(argv: string[], flags: string[], valued: string[] = []): Parsed {
  const out: Parsed = { positional: [], flags: new Set(), values: new Map(), lists: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') throw new HelpRequested();
    if (!a.startsWith('--')) {
      out.positional.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split('=', 2);
    if (flags.includes(name) && inline === undefined) out.flags.add(name);
    else if (valued.includes(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`option --${name} needs a value`);
      out.values.set(name, v);
      out.lists.set(name, [...(out.lists.get(name) ?? []), v]);
    } else throw new UsageError(`unknown option ${a}`);
  }
  return out;
}

/** `--metric KEY` (every mode) or `--metric serving=ttft_mean_ms`, repeatable. */
function metricOf(p: Parsed): PrimaryOverride | undefined {
  const list = p.lists.get('metric');
  if (!list) return undefined;
  const out: PrimaryOverride = {};
  for (const item of list) {
    const [mode, key] = item.includes('=') ? item.split('=', 2) : ['all', item];
    if (!(OVERRIDE_KEYS as readonly string[]).includes(mode)) throw new UsageError(`--metric ${item}: mode must be one of ${OVERRIDE_KEYS.join(', ')}`);
    if (metricDef(key)?.kind !== 'metric')
      throw new UsageError(
        `--metric ${item}: ${key} is not a metric (known: ${METRICS.filter(m => m.kind === 'metric')
          .map(m => m.key)
          .join(', ')})`,
      );
    out[mode as keyof PrimaryOverride] = key;
  }
  return out;
}

/** `--cache DIR`: a folder for the persistent index (created when missing; a file there is an error). */
function cacheOf(p: Parsed): string | undefined {
  const v = p.values.get('cache');
  if (v === undefined) return undefined;
  try {
    mkdirSync(v, { recursive: true });
  } catch (e) {
    throw new UsageError(`--cache ${v}: cannot use it as a folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return v;
}

function tieBandOf(p: Parsed): number {
  const v = p.values.get('tie-band');
  if (v === undefined) return 2;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--tie-band must be a number ≥ 0 (got ${v})`);
  return n;
}

/** Each command: its arguments after the command word, in; its exit code, out. */
type Command = (rest: string[], out: (s: string) => void, err: (s: string) => void) => Promise<number>;

const CAMPAIGN_OPTIONS = [
  'folder',
  'select',
  'repeats',
  'id',
  'recipe',
  'checkout',
  'image-human',
  'image-baseline',
  'secret-env',
  'env',
  'server-timeout',
  'benchmark-timeout',
  ...HOST_OPTIONS,
];

/** A campaign's options (hosts, run settings, secrets) as `campaign` and `ablate start` take them. */
function campaignArgsOf(sub: CampaignArgs['sub'], a: Parsed, defaultRepeats = 1): CampaignArgs {
  const repeats = Number(a.values.get('repeats') ?? defaultRepeats);
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > 100)
    throw new UsageError(`--repeats must be a whole number from 1 to 100 (got ${a.values.get('repeats')})`);
  const hostUrls = a.lists.get('host') ?? [undefined];
  const hosts = hostUrls.map(u => {
    const one = { ...a, values: new Map(a.values) };
    if (u !== undefined) one.values.set('host', u);
    one.values.delete('label');
    return hostOf(one);
  });
  const names = a.lists.get('secret-env') ?? [];
  const secretEnv = secretEnvOf(names);
  const seconds = (k: string) => (a.values.has(k) ? Number(a.values.get(k)) : undefined);
  return {
    sub,
    folder: a.values.get('folder')!,
    select: a.values.get('select'),
    repeats,
    id: a.values.get('id'),
    json: a.flags.has('json'),
    build: a.flags.has('build'),
    hosts,
    settings: {
      recipes: a.lists.get('recipe') ?? [],
      templates: { human: a.values.get('image-human'), baseline: a.values.get('image-baseline') },
      serverTimeoutS: seconds('server-timeout'),
      benchmarkTimeoutS: seconds('benchmark-timeout'),
      secretEnv,
      env: envOf(a),
      checkout: a.values.get('checkout') ?? null,
    },
    secretValues: () => secretEnv,
  };
}

const COMMANDS: Record<string, Command> = {
  scan: async (rest, out, err) => {
    const a = parseArgs(rest, ['json', 'runs']);
    if (a.positional.length !== 1) throw new UsageError('scan needs exactly one folder');
    return scanCommand({ folder: a.positional[0], json: a.flags.has('json'), runs: a.flags.has('runs') }, out, err);
  },
  classify: async (rest, out, err) => {
    const a = parseArgs(rest, ['json', 'allow-failed-requests'], ['tie-band', 'rules', 'metric', 'cache', 'select']);
    if (a.positional.length !== 1) throw new UsageError('classify needs exactly one folder');
    return classifyCommand(
      {
        folder: a.positional[0],
        select: a.values.get('select'),
        json: a.flags.has('json'),
        tieBand: tieBandOf(a),
        rules: a.values.get('rules'),
        primaryMetric: metricOf(a),
        cache: cacheOf(a),
        allowFailedRequests: a.flags.has('allow-failed-requests'),
      },
      out,
      err,
      bytes => {
        process.stdout.write(bytes);
        process.stdout.write('\n');
      },
    );
  },
  'classify-log': async (rest, out, err) => {
    const a = parseArgs(rest, ['json'], ['rules']);
    if (a.positional.length === 0) throw new UsageError('classify-log needs at least one file');
    return classifyLogCommand({ files: a.positional, json: a.flags.has('json'), rules: a.values.get('rules') }, out, err);
  },
  rules: async (rest, out, err) => {
    const [sub, ...more] = rest;
    if (sub === 'train') {
      const t = parseArgs(more, [], ['out']);
      if (t.positional.length !== 1) throw new UsageError('rules train needs exactly one folder');
      return rulesTrainCommand({ folder: t.positional[0], out: t.values.get('out') }, out, err);
    }
    if (sub !== 'test') throw new UsageError(`rules: unknown subcommand ${sub ?? '(none)'}; try "rules test <folder>" or "rules train <folder>"`);
    const a = parseArgs(more, ['json', 'cross-validate'], ['rules', 'tsv', 'min-recall', 'stage']);
    const stage = a.values.get('stage');
    if (stage !== undefined && stage !== 'structure' && stage !== 'learned') throw new UsageError(`--stage must be structure or learned (got ${stage})`);
    if (a.positional.length !== 1) throw new UsageError('rules test needs exactly one folder');
    const minRecall = a.values.has('min-recall') ? Number(a.values.get('min-recall')) : undefined;
    if (minRecall !== undefined && !(minRecall >= 0 && minRecall <= 1))
      throw new UsageError(`--min-recall must be between 0 and 1 (got ${a.values.get('min-recall')})`);
    return rulesTestCommand(
      {
        folder: a.positional[0],
        json: a.flags.has('json'),
        rules: a.values.get('rules'),
        tsv: a.values.get('tsv'),
        minRecall,
        crossValidate: a.flags.has('cross-validate'),
        stage,
      },
      out,
      err,
    );
  },
  label: async (rest, out, err) => {
    const a = parseArgs(rest, ['list'], ['commit', 'agent', 'role', 'category', 'note']);
    if (a.positional.length !== 1) throw new UsageError('label needs exactly one folder');
    return labelCommand(
      {
        folder: a.positional[0],
        commit: a.values.get('commit'),
        agent: a.values.get('agent'),
        role: a.values.get('role'),
        category: a.values.get('category'),
        note: a.values.get('note'),
        list: a.flags.has('list'),
      },
      out,
      err,
    );
  },
  report: async (rest, out, err) => {
    const a = parseArgs(rest, ['include-incomparable', 'allow-failed-requests'], ['format', 'out', 'tie-band', 'rules', 'metric', 'cache']);
    if (a.positional.length !== 1) throw new UsageError('report needs exactly one folder');
    const format = a.values.get('format') ?? 'md';
    if (format !== 'md' && format !== 'json') throw new UsageError(`--format must be md or json (got ${format})`);
    return reportCommand(
      {
        folder: a.positional[0],
        format,
        out: a.values.get('out'),
        tieBand: tieBandOf(a),
        rules: a.values.get('rules'),
        primaryMetric: metricOf(a),
        includeIncomparable: a.flags.has('include-incomparable'),
        allowFailedRequests: a.flags.has('allow-failed-requests'),
        cache: cacheOf(a),
      },
      out,
      err,
    );
  },
  plan: async (rest, out, err) => {
    const a = parseArgs(rest, ['json'], ['folder', 'commit', 'role', 'host', 'gpus', 'recipe', 'agent-patch', 'checkout']);
    for (const k of ['folder', 'commit', 'role']) if (!a.values.has(k)) throw new UsageError(`plan needs --${k}`);
    const gpus = Number(a.values.get('gpus') ?? 1);
    if (!Number.isInteger(gpus) || gpus < 0) throw new UsageError(`--gpus must be a whole number (got ${a.values.get('gpus')})`);
    const planHost = a.values.get('host') ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
    const hostProblem = hostAddressProblem(planHost);
    if (hostProblem) throw new UsageError(`--host ${hostProblem}`);
    return runner().planCommand(
      {
        folder: a.values.get('folder')!,
        commit: a.values.get('commit')!,
        role: a.values.get('role')!,
        host: a.values.get('host') ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock',
        gpus,
        recipes: a.lists.get('recipe') ?? [],
        agentPatch: a.values.get('agent-patch'),
        checkout: a.values.get('checkout'),
        json: a.flags.has('json'),
      },
      out,
      err,
    );
  },
  run: async (rest, out, err) => {
    const a = parseArgs(
      rest,
      ['dry-run'],
      [
        'folder',
        'commit',
        'role',
        'recipe',
        'agent-patch',
        'checkout',
        'image-human',
        'image-baseline',
        'env',
        'secret-env',
        'server-timeout',
        'benchmark-timeout',
        ...HOST_OPTIONS,
      ],
    );
    for (const k of ['folder', 'commit', 'role']) if (!a.values.has(k)) throw new UsageError(`run needs --${k}`);
    const env = envOf(a);
    const seconds = (k: string) => {
      const n = a.values.has(k) ? Number(a.values.get(k)) : undefined;
      if (n !== undefined && !(n > 0)) throw new UsageError(`--${k} must be seconds > 0`);
      return n;
    };
    return runner().runCommand(
      {
        folder: a.values.get('folder')!,
        commit: a.values.get('commit')!,
        role: a.values.get('role')!,
        host: hostOf(a),
        recipes: a.lists.get('recipe') ?? [],
        dryRun: a.flags.has('dry-run'),
        agentPatch: a.values.get('agent-patch'),
        checkout: a.values.get('checkout'),
        env,
        templates: { human: a.values.get('image-human'), baseline: a.values.get('image-baseline') },
        serverTimeoutS: seconds('server-timeout'),
        benchmarkTimeoutS: seconds('benchmark-timeout'),
        secretEnv: a.lists.get('secret-env') ?? [],
      },
      out,
      err,
      interruptSignal(),
    );
  },
  build: async (rest, out, err) => {
    const a = parseArgs(
      rest,
      ['rebuild', 'dry-run', 'json'],
      ['folder', 'commit', 'role', 'checkout', 'image-human', 'image-baseline', 'human-base', 'dockerfile', 'build-arg', 'timeout', ...HOST_OPTIONS],
    );
    for (const k of ['folder', 'commit', 'role']) if (!a.values.has(k)) throw new UsageError(`build needs --${k}`);
    const args: Record<string, string> = {};
    for (const kv of a.lists.get('build-arg') ?? []) {
      const i = kv.indexOf('=');
      if (i <= 0) throw new UsageError(`--build-arg needs NAME=VALUE (got ${kv})`);
      args[kv.slice(0, i)] = kv.slice(i + 1);
    }
    const timeout = a.values.has('timeout') ? Number(a.values.get('timeout')) : undefined;
    if (timeout !== undefined && !(timeout > 0)) throw new UsageError('--timeout must be seconds > 0');
    let dockerfile: string[] | undefined;
    if (a.values.has('dockerfile')) {
      try {
        dockerfile = readTextBoundedSync(a.values.get('dockerfile')!, { maxBytes: 1024 * 1024, follow: true, what: 'the Dockerfile' }).split('\n');
      } catch (e) {
        if (e instanceof ReadRefused) throw new UsageError(`--dockerfile ${e.message}`);
        throw new UsageError(`--dockerfile ${a.values.get('dockerfile')}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    const host = hostOf({ ...a, values: new Map([['gpus', '0'], ...a.values]) });
    return runner().buildCommand(
      {
        folder: a.values.get('folder')!,
        commit: a.values.get('commit')!,
        role: a.values.get('role')!,
        host,
        checkout: a.values.get('checkout') ?? process.env.BENCH_TRIAGE_VLLM_CHECKOUT,
        rebuild: a.flags.has('rebuild'),
        dryRun: a.flags.has('dry-run'),
        json: a.flags.has('json'),
        settings: {
          args,
          dockerfile,
          humanBase: a.values.get('human-base'),
          timeoutS: timeout,
          templates: imageTemplatesOf({ human: a.values.get('image-human'), baseline: a.values.get('image-baseline') }),
        },
      },
      out,
      err,
      interruptSignal(),
    );
  },
  resume: async (rest, out, err) => {
    const a = parseArgs(rest, [], ['folder', 'secret-env', ...HOST_OPTIONS]);
    if (!a.values.has('folder')) throw new UsageError('resume needs --folder');
    return runner().resumeCommand(a.values.get('folder')!, hostOf(a), out, err, interruptSignal(), a.lists.get('secret-env') ?? []);
  },
  campaign: async (rest, out, err) => {
    const [sub, ...more] = rest;
    if (!['plan', 'start', 'status', 'cancel', 'resume'].includes(sub ?? ''))
      throw new UsageError(`campaign: unknown subcommand ${sub ?? '(none)'}; one of plan, start, status, cancel, resume`);
    const a = parseArgs(more, ['json', 'build'], CAMPAIGN_OPTIONS);
    if (!a.values.has('folder')) throw new UsageError(`campaign ${sub} needs --folder`);
    return runner().campaignCommand(campaignArgsOf(sub as CampaignArgs['sub'], a), out, err, interruptSignal());
  },
  ablate: async (rest, out, err) => {
    const [sub, ...more] = rest;
    if (!['plan', 'start', 'report'].includes(sub ?? '')) throw new UsageError(`ablate: unknown subcommand ${sub ?? '(none)'}; one of plan, start, report`);
    if (sub === 'report') {
      const a = parseArgs(more, ['json'], ['folder', 'id', 'format', 'metric', 'tie-band', 'out']);
      if (!a.values.has('folder')) throw new UsageError('ablate report needs --folder');
      const format = a.flags.has('json') ? 'json' : (a.values.get('format') ?? 'md');
      if (format !== 'md' && format !== 'json') throw new UsageError(`--format must be md or json (got ${format})`);
      const band = Number(a.values.get('tie-band') ?? 2);
      if (!Number.isFinite(band) || band < 0 || band > 100)
        throw new UsageError(`--tie-band must be a percentage from 0 to 100 (got ${a.values.get('tie-band')})`);
      const metric = a.values.get('metric');
      if (metric !== undefined && !metricDef(metric)) throw new UsageError(`--metric ${metric}: not a known metric (${METRICS.map(m => m.key).join(', ')})`);
      return runner().ablateReportCommand(
        { folder: a.values.get('folder')!, id: a.values.get('id'), format, metric, band, outFile: a.values.get('out') },
        out,
        err,
      );
    }
    const ABLATE = ['commit', 'agent', 'patch', 'units', 'design', 'max-tests'];
    const a =
      sub === 'plan'
        ? parseArgs(more, ['json'], ['folder', 'repeats', 'gpus', 'checkout', ...ABLATE])
        : parseArgs(more, ['json'], [...CAMPAIGN_OPTIONS, ...ABLATE]);
    if (!a.values.has('folder')) throw new UsageError(`ablate ${sub} needs --folder`);
    if (sub === 'start' && !a.values.has('commit')) throw new UsageError('ablate start needs --commit (one commit a campaign)');
    const whole = (k: string, def: number, min: number, max: number) => {
      const v = Number(a.values.get(k) ?? def);
      if (!Number.isInteger(v) || v < min || v > max) throw new UsageError(`--${k} must be a whole number from ${min} to ${max} (got ${a.values.get(k)})`);
      return v;
    };
    const oneOf = <T extends string>(k: string, allowed: readonly T[], def: T | undefined) => {
      const v = a.values.get(k) ?? def;
      if (v !== undefined && !(allowed as readonly string[]).includes(v)) throw new UsageError(`--${k} must be one of ${allowed.join(', ')} (got ${v})`);
      return v as T | undefined;
    };
    const ablation = {
      commit: a.values.get('commit'),
      agent: a.values.get('agent'),
      patch: oneOf('patch', ['agent', 'human'] as const, 'agent')!,
      units: oneOf('units', ['files', 'hunks'] as const, undefined),
      design: oneOf<Design>('design', DESIGNS, 'leave-one-out')!,
      repeats: whole('repeats', 3, 1, 100),
      maxTests: a.values.has('max-tests') ? whole('max-tests', 0, 1, 10_000) : undefined,
    };
    if (sub === 'start') {
      return runner().campaignCommand({ ...campaignArgsOf('ablate', a, 3), ablation }, out, err, interruptSignal());
    }
    return runner().ablatePlanCommand(
      {
        folder: a.values.get('folder')!,
        ...ablation,
        host: { label: 'H100', docker: process.env.DOCKER_HOST || 'unix:///var/run/docker.sock', gpus: whole('gpus', 1, 0, 1024) },
        checkout: a.values.get('checkout') ?? null,
        json: a.flags.has('json'),
      },
      out,
      err,
    );
  },
  swarm: async (rest, out, err) => {
    const [sub, ...more] = rest;
    if (!['status', 'check'].includes(sub ?? '')) throw new UsageError(`swarm: unknown subcommand ${sub ?? '(none)'}; one of status, check`);
    const a = parseArgs(more, ['json'], [...HOST_OPTIONS, 'nvidia-config']);
    const cfg = a.values.get('nvidia-config');
    if (cfg !== undefined && (!cfg.startsWith('/') || cfg.endsWith('/') || /[\0-\x1f]/.test(cfg)))
      throw new UsageError(`--nvidia-config needs the absolute path of the file on the nodes (got ${JSON.stringify(cfg.slice(0, 80))})`);
    if (!a.values.has('host')) throw new UsageError(`swarm ${sub} needs --host swarm+tcp://MANAGER:2376 (or swarm+unix://, swarm+ssh://)`);
    const host = hostOf(a);
    if (host.kind !== 'swarm')
      throw new UsageError(`--host ${a.values.get('host')}: not a swarm manager (write it swarm+tcp://…, swarm+unix://… or swarm+ssh://…)`);
    return runner().swarmCommand(sub as 'status' | 'check', host, a.flags.has('json'), out, err, cfg);
  },
};

export async function main(argv: string[]): Promise<number> {
  const out = (s: string) => process.stdout.write(s + '\n');
  const err = (s: string) => process.stderr.write(s);
  const [cmd, ...rest] = argv;
  try {
    if (cmd === undefined || cmd === '-h' || cmd === '--help' || cmd === 'help') {
      out(USAGE);
      return cmd ? 0 : 2;
    }
    const command = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
    if (!command) throw new UsageError(`unknown command ${cmd}`);
    return await command(rest, out, err);
  } catch (e) {
    if (e instanceof HelpRequested) {
      out(USAGE);
      return 0;
    }
    if (e instanceof UsageError) {
      err(`bench-triage: ${e.message}\n${USAGE}`);
      return 2;
    }
    err(`bench-triage: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

if (require.main === module) {
  // Exit explicitly: a Docker host over SSH or TLS can keep idle sockets open after the work is done.
  main(process.argv.slice(2)).then(async code => {
    // GPU slots held on a swarm go back to it before the process does (their holders would
    // otherwise keep the GPUs until they notice, HOLDER_IDLE_S later).
    await runnerLoaded?.releaseSwarmSlots().catch(() => undefined);
    process.stdout.write('', () => process.exit(code));
  });
}
