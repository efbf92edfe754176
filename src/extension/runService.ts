import * as path from 'node:path';
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { Role } from '../core/model';
import { DockerRuntime } from '../runner/dockerRuntime';
import { Runner, type RunEvents } from '../runner/execute';
import { HostQueue } from '../runner/hostQueue';
import type { HostConfig } from '../runner/hosts';
import { planRun, type RunPlan } from '../runner/plan';
import { FINAL_STATES, newRunId, type RunRecord } from '../runner/runRecord';
import { configuredHosts, imageTemplates, timeouts } from './hostsConfig';
import type { FolderScan } from './store';

export const HF_TOKEN_KEY = 'benchTriage.huggingFaceToken';
export const secretKey = (name: string) => `benchTriage.secret.${name}`;

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
  const raw = vscode.workspace.getConfiguration('benchTriage', scope).get<unknown>('runEnv');
  (Array.isArray(raw) ? raw : []).forEach((e, i) => {
    const at = `benchTriage.runEnv[${i}]`;
    if (typeof e === 'string') {
      const k = e.indexOf('=');
      const name = k > 0 ? e.slice(0, k) : '';
      if (!NAME.test(name)) problems.push(`${at}: "${e.slice(0, 40)}" is not NAME=VALUE`);
      else if (/TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i.test(name)) problems.push(`${at}: ${name} looks like a secret: declare it as { "name": "${name}", "secret": true } and set its value with "Set Run Secret…" (settings.json is plain text)`);
      else env[name] = e.slice(k + 1);
    } else if (e && typeof e === 'object' && typeof (e as { name?: unknown }).name === 'string' && (e as { secret?: unknown }).secret === true) {
      const name = (e as { name: string }).name;
      if (!NAME.test(name)) problems.push(`${at}.name: "${name}" is not an environment variable name`); else secretNames.push(name);
    } else problems.push(`${at}: expected "NAME=VALUE" or { "name": "NAME", "secret": true }`);
  });
  return { env, secretNames, problems };
}


/** A run the window knows about: live while it runs, kept (finished) for the session. */
export interface LiveRun { key: string; host: HostConfig; folder: vscode.Uri; record: RunRecord; ctl: AbortController; startedMs: number; endedMs: number | null }

export class TrustError extends Error {}

/** Refuses run/rerun/apply in an untrusted workspace (browsing stays available). */
export function requireTrust(action: string): void {
  if (!vscode.workspace.isTrusted) throw new TrustError(`Bench Triage: ${action} needs a trusted workspace (running benchmarks executes commands on a Docker host). Browsing results works untrusted.`);
}

/**
 * Starts runs on the configured hosts (one queue per host: runs ≤ its GPUs), follows them for the
 * Runs view and the status bar, cancels them, and re-attaches to runs a previous window left.
 */
export class RunService implements vscode.Disposable {
  private readonly runs = new Map<string, LiveRun>();
  private readonly queues = new Map<string, HostQueue>();
  private readonly changed = new vscode.EventEmitter<LiveRun | undefined>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {}

  list(): LiveRun[] { return [...this.runs.values()].sort((a, b) => b.startedMs - a.startedMs); }
  active(): LiveRun[] { return this.list().filter(r => !FINAL_STATES.includes(r.record.status)); }

  private queue(h: HostConfig): HostQueue {
    const k = `${h.label}|${h.docker}`;
    let q = this.queues.get(k);
    if (!q) this.queues.set(k, (q = new HostQueue(h.gpus, h.maxParallel)));
    return q;
  }

  private events(host: HostConfig, folder: vscode.Uri, ctl: AbortController): RunEvents {
    const upd = (r: RunRecord) => {
      const key = `${r.commit}/${r.role}/${r.runId}`;
      const live = this.runs.get(key) ?? { key, host, folder, record: r, ctl, startedMs: Date.now(), endedMs: null };
      live.record = r;
      if (FINAL_STATES.includes(r.status) && live.endedMs === null) live.endedMs = Date.now();
      this.runs.set(key, live);
      this.changed.fire(live);
    };
    return { state: upd, phase: r => upd(r), note: r => upd(r) };
  }

  /** Plans every role first (refusals before anything runs), then starts them. */
  async start(scan: FolderScan, commitHash: string, roles: Role[], opts: { host?: HostConfig; recipes?: string[] } = {}): Promise<RunRecord[]> {
    requireTrust('Running a benchmark');
    const host = opts.host ?? configuredHosts(scan.root)[0];
    const commit = scan.result.commits.find(c => c.hash === commitHash);
    if (!commit) throw new Error(`Bench Triage: commit ${commitHash.slice(0, 12)} is not in ${scan.root.fsPath}`);
    const agentRun = scan.result.agentRuns.find(r => r.commit === commitHash && r.patch && !r.patch.empty) ?? null;
    const patchPath = agentRun?.patch ? path.join(scan.root.fsPath, agentRun.patch.path) : null;
    const t = timeouts(scan.root);
    const plans: RunPlan[] = roles.map(role => planRun(commit, role, { host, recipes: opts.recipes, agentPatch: patchPath, runId: newRunId(), templates: imageTemplates(scan.root), serverTimeoutS: t.serverS }));
    const { env, secretNames, problems } = runEnvSetting(scan.root);
    if (problems.length) throw new Error(`Bench Triage: settings: ${problems.join('; ')}`);
    const secretEnv = await this.secretValues(secretNames);
    const missing = secretNames.filter(n => !(n in secretEnv));
    if (missing.length) throw new Error(`Bench Triage: secret ${missing.join(', ')} (benchTriage.runEnv) has no value: set it with "Bench Triage: Set Run Secret…", or in the environment VS Code was started from`);
    const token = await this.secrets.get(HF_TOKEN_KEY);
    if (token) Object.assign(secretEnv, { HF_TOKEN: token, HUGGING_FACE_HUB_TOKEN: token });
    const checkout = vscode.workspace.getConfiguration('benchTriage', scan.root).get<string>('vllmCheckout')?.trim() || null;
    const patchText = plans.some(p => p.role === 'agent') && patchPath ? await readFile(patchPath, 'utf8') : null;
    return Promise.all(plans.map(plan => {
      const ctl = new AbortController();
      const runner = new Runner(new DockerRuntime(host), this.queue(host), this.events(host, scan.root, ctl));
      return runner.run({ plan, folder: scan.root.fsPath, agentPatch: plan.role === 'agent' ? patchText : null, checkout, env, secretEnv,
        model: commit.models[0] ?? null, agent: plan.role === 'agent' ? agentRun?.agent ?? null : null, benchmarkTimeoutS: t.benchmarkS, signal: ctl.signal });
    }));
  }

  /** Secret values by name: the Hugging Face token, else `benchTriage.secret.<NAME>` in SecretStorage, else the environment. */
  async secretValues(names: readonly string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const token = await this.secrets.get(HF_TOKEN_KEY);
    for (const n of names) {
      const v = (n === 'HF_TOKEN' || n === 'HUGGING_FACE_HUB_TOKEN') && token ? token : (await this.secrets.get(secretKey(n))) ?? process.env[n];
      if (v) out[n] = v;
    }
    return out;
  }

  cancel(key: string): boolean {
    const r = this.runs.get(key);
    if (!r || FINAL_STATES.includes(r.record.status)) return false;
    r.ctl.abort();
    return true;
  }

  /** Re-attaches to unfinished runs of the workspace folders on every configured host (after a reload). */
  async reattach(folders: readonly vscode.Uri[]): Promise<RunRecord[]> {
    if (!vscode.workspace.isTrusted) return [];
    const out: RunRecord[] = [];
    for (const folder of folders) for (const host of configuredHosts(folder)) {
      const ctl = new AbortController();
      const runner = new Runner(new DockerRuntime(host), this.queue(host), this.events(host, folder, ctl));
      // The values of a run's secrets come from SecretStorage (or the environment) again; the runner
      // falls back to the container's own copy, so a re-attached log is masked like the first.
      out.push(...await runner.resume(folder.fsPath, ctl.signal, names => this.secretValues(names)).catch(() => []));
    }
    return out;
  }

  dispose(): void { for (const r of this.active()) r.ctl.abort(); this.changed.dispose(); }
}
