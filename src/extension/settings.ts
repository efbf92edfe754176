import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BuildSettings } from '../core/run/buildPlan';
import { hostAddressProblem, maskHostPassword, registryProblem, splitHostUrl, type HostConfig } from '../core/run/hosts';
import { imageTemplatesOf, type ImageTemplates } from '../core/run/plan';
import { reservedEnvProblem } from '../core/perfcmd/reservedEnv';
import { metricDef, OVERRIDE_KEYS, type PrimaryOverride } from '../core/metrics';
import { MAX_LABELS_BYTES, MAX_RULES_BYTES, parseLabels, parseRulesFile, type Label, type Rule } from '../core/classify';
import { readTextBounded } from '../platform/boundedRead';
import type { WorkspaceSettings } from '../app/workspace';

/**
 * Every `benchTriage.*` setting read in one place, each validated: an invalid value is named
 * (setting and field) once and the default applies; nothing is rewritten.
 */
const config = (scope?: vscode.Uri) => vscode.workspace.getConfiguration('benchTriage', scope);

/** The configured Docker hosts; without any, one host named "H100" on `DOCKER_HOST` with `hostGpus` GPUs. */
export function configuredHosts(scope?: vscode.Uri): HostConfig[] {
  const c = config(scope);
  const hosts = (c.get<Array<Partial<HostConfig>>>('hosts') ?? []).filter(h => h && typeof h === 'object');
  if (!hosts.length) {
    const g = c.get<unknown>('hostGpus', 1);
    const gpus = typeof g === 'number' && Number.isInteger(g) && g >= 0 ? g : 1;
    if (gpus !== g) warnOnce(`benchTriage.hostGpus: ${JSON.stringify(g)?.slice(0, 40)} is not a whole number of GPUs; 1 applies`);
    // Named for what it is: with no host set, runs go to the local engine (DOCKER_HOST), not to an H100.
    return [{ label: 'local engine (no host set)', docker: '', gpus }];
  }
  // The swarm's registry: builds push there and runs pull from it (a plain engine runs what it has).
  const reg = c.get<unknown>('registry', '');
  const registry = typeof reg === 'string' && reg.trim() ? reg.trim() : undefined;
  const regProblem = registry ? registryProblem(registry) : null;
  if (regProblem) warnOnce(`benchTriage.registry: ${regProblem}; no registry applies`);
  return hosts.map((h, i) => {
    const raw = String(h.docker ?? '');
    const problem = raw ? hostAddressProblem(raw) : null;
    // A host that cannot be used is said once; its password never reaches a message or a record.
    if (problem) warnOnce(`benchTriage.hosts[${i}].docker: ${problem}`);
    return {
      label: maskHostPassword(String(h.label ?? `host ${i + 1}`)),
      // `swarm+unix://…`, `swarm+ssh://…`, `swarm://manager:2376` name a swarm manager.
      ...splitHostUrl(maskHostPassword(raw)),
      gpus: Number.isInteger(h.gpus) ? Number(h.gpus) : 1,
      maxParallel: typeof h.maxParallel === 'number' ? h.maxParallel : undefined,
      tls: h.tls,
      ssh: h.ssh,
      ...(registry && !regProblem && raw.startsWith('swarm') ? { registry } : {}),
    };
  });
}

export function imageTemplates(scope?: vscode.Uri): ImageTemplates {
  const t = config(scope).get<Partial<ImageTemplates>>('imageTemplates') ?? {};
  return imageTemplatesOf(t);
}

export function timeouts(scope?: vscode.Uri): { serverS: number; benchmarkS: number } {
  const c = config(scope);
  return { serverS: c.get<number>('serverTimeoutSeconds', 600), benchmarkS: c.get<number>('benchmarkTimeoutSeconds', 3600) };
}

export const GROUP_BY = ['category', 'fixability', 'agent', 'model', 'outcome'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
export const isGroupBy = (v: unknown): v is GroupBy => typeof v === 'string' && (GROUP_BY as readonly string[]).includes(v);

/** `benchTriage.groupBy` (an invalid value reads as the default and is reported). */
export function groupBySetting(): GroupBy {
  const v = config().get<unknown>('groupBy', 'category');
  if (isGroupBy(v)) return v;
  warnOnce(`benchTriage.groupBy: ${JSON.stringify(v)?.slice(0, 80)} is not one of ${GROUP_BY.join(', ')}; "category" applies`);
  return 'category';
}

export function tieBandSetting(scope?: vscode.Uri): number {
  const v = config(scope).get<unknown>('tieBand', 2);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  warnOnce(`benchTriage.tieBand: ${JSON.stringify(v)?.slice(0, 40)} is not a number ≥ 0; 2 applies`);
  return 2;
}

/** `benchTriage.allowFailedRequests`: compare runs whose benchmark had failed requests. */
export function allowFailedRequestsSetting(scope?: vscode.Uri): boolean {
  const v = config(scope).get<unknown>('allowFailedRequests', false);
  if (typeof v === 'boolean') return v;
  warnOnce(`benchTriage.allowFailedRequests: ${JSON.stringify(v)?.slice(0, 40)} is not true or false; false applies`);
  return false;
}

/** `benchTriage.primaryMetric`: a headline metric per benchmark mode (invalid entries are ignored, and named). */
export function primaryMetricSetting(scope?: vscode.Uri): PrimaryOverride {
  const raw = config(scope).get<unknown>('primaryMetric');
  const out: PrimaryOverride = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw)) {
    const bad = !(OVERRIDE_KEYS as readonly string[]).includes(k)
      ? `"${k}" is not a benchmark mode (use ${OVERRIDE_KEYS.join(', ')})`
      : typeof v !== 'string' || metricDef(v)?.kind !== 'metric'
        ? `${JSON.stringify(v)} is not a metric key (e.g. ttft_mean_ms, output_throughput_tok_s)`
        : null;
    if (bad) {
      warnOnce(`benchTriage.primaryMetric.${k}: ${bad}; the built-in rule applies`);
      continue;
    }
    out[k as keyof PrimaryOverride] = v as string;
  }
  return out;
}

/**
 * A file of the folder's `.bench-triage/`: on disk read without following links or blocking and
 * capped (a link to /dev/zero or a FIFO cannot hang the window); elsewhere capped by its size.
 */
async function boundedText(file: vscode.Uri, maxBytes: number, what: string): Promise<string> {
  if (file.scheme === 'file') return readTextBounded(file.fsPath, { maxBytes, what });
  const st = await vscode.workspace.fs.stat(file);
  if (st.type !== vscode.FileType.File || st.size > maxBytes) throw new Error(`${file.toString()}: ${what} not read`);
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
}

/** `.bench-triage/rules.json` of a folder; its problems are shown by the language server, not here. */
export async function userRules(root: vscode.Uri): Promise<Rule[]> {
  try {
    const file = vscode.Uri.joinPath(root, '.bench-triage', 'rules.json');
    return parseRulesFile(await boundedText(file, MAX_RULES_BYTES, 'the rules file')).rules;
  } catch {
    return [];
  }
}

/** What a folder's Workspace computes under. */
export async function workspaceSettings(root: vscode.Uri): Promise<WorkspaceSettings> {
  return {
    tieBand: tieBandSetting(root),
    primaryMetric: primaryMetricSetting(root),
    rules: await userRules(root),
    allowFailedRequests: allowFailedRequestsSetting(root),
    labels: await userLabels(root),
  };
}

/** `.bench-triage/labels.json` of a folder (labels with problems are left out; Set Category… names them). */
export async function userLabels(root: vscode.Uri): Promise<Label[]> {
  try {
    const file = vscode.Uri.joinPath(root, '.bench-triage', 'labels.json');
    return parseLabels(await boundedText(file, MAX_LABELS_BYTES, 'the labels file')).labels;
  } catch {
    return [];
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `benchTriage.runEnv`: `"NAME=VALUE"` entries (plain, they show in docker inspect) and
 * `{ "name": "NAME", "secret": true }` entries, whose value lives in SecretStorage (or the
 * environment) and is masked everywhere. A value that looks secret in a plain entry is refused.
 */
export function runEnvSetting(scope?: vscode.Uri): { env: Record<string, string>; secretNames: string[]; problems: string[] } {
  const env: Record<string, string> = {};
  const secretNames: string[] = [];
  const problems: string[] = [];
  const raw = config(scope).get<unknown>('runEnv');
  (Array.isArray(raw) ? raw : []).forEach((e, i) => {
    const at = `benchTriage.runEnv[${i}]`;
    if (typeof e === 'string') {
      const k = e.indexOf('=');
      const name = k > 0 ? e.slice(0, k) : '';
      if (!NAME.test(name)) problems.push(`${at}: "${e.slice(0, 40)}" is not NAME=VALUE`);
      else if (reservedEnvProblem(name)) problems.push(`${at}: ${reservedEnvProblem(name)!}`);
      else if (/TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i.test(name))
        problems.push(
          `${at}: ${name} looks like a secret: declare it as { "name": "${name}", "secret": true } and set its value with "Set Run Secret…" (settings.json is plain text)`,
        );
      else env[name] = e.slice(k + 1);
    } else if (e && typeof e === 'object' && typeof (e as { name?: unknown }).name === 'string' && (e as { secret?: unknown }).secret === true) {
      const name = (e as { name: string }).name;
      if (!NAME.test(name)) problems.push(`${at}.name: "${name}" is not an environment variable name`);
      else if (reservedEnvProblem(name)) problems.push(`${at}.name: ${reservedEnvProblem(name)!}`);
      else secretNames.push(name);
    } else problems.push(`${at}: expected "NAME=VALUE" or { "name": "NAME", "secret": true }`);
  });
  return { env, secretNames, problems };
}

/** `benchTriage.vllmCheckout`: `${workspaceFolder}` and relative paths resolve against the folder. */
export function vllmCheckoutSetting(scope?: vscode.Uri): string | null {
  const v = config(scope).get<string>('vllmCheckout')?.trim();
  if (!v) return null;
  const base = scope?.scheme === 'file' ? scope.fsPath : (vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd());
  return path.resolve(base, v.replace(/\$\{workspaceFolder\}/g, base));
}

/** `benchTriage.build.*`: the Dockerfile template, its build args, the base of human images, the limit (invalid values named once, defaults apply). */
export function buildSettings(scope?: vscode.Uri): BuildSettings {
  const c = config(scope);
  const out: BuildSettings = { templates: imageTemplates(scope) };
  const df = c.get<unknown>('build.dockerfile');
  if (Array.isArray(df) && df.length && df.every(l => typeof l === 'string')) out.dockerfile = df as string[];
  else if (df !== undefined && !(Array.isArray(df) && df.length === 0))
    warnOnce("benchTriage.build.dockerfile: not a list of lines; the default Dockerfile (ISO-Bench's baseline image) applies");
  const args = c.get<unknown>('build.args');
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    out.args = {};
    for (const [k, v] of Object.entries(args as Record<string, unknown>))
      if (typeof v === 'string' || typeof v === 'number') out.args[k] = String(v);
      else warnOnce(`benchTriage.build.args.${k}: not a string; left out`);
  }
  const base = c.get<unknown>('build.humanBaseImage');
  if (typeof base === 'string' && base.trim()) out.humanBase = base.trim();
  const minutes = c.get<unknown>('build.timeoutMinutes', 180);
  if (typeof minutes === 'number' && minutes > 0) out.timeoutS = Math.round(minutes * 60);
  else warnOnce(`benchTriage.build.timeoutMinutes: ${JSON.stringify(minutes)} is not a number of minutes > 0; 180 applies`);
  return out;
}
export const codeLensEnabled = (scope?: vscode.Uri): boolean => config(scope).get<boolean>('codeLens.enabled', true) !== false;

const warned = new Set<string>();
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  void vscode.window.showWarningMessage(`Bench Triage: settings: ${message}.`);
}
