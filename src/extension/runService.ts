import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRun, Role } from '../core/model';
import { Runs, type LiveRun, type RunSettings, type RunsEvent, type RunTarget } from '../app/runs';
import type { RunKey } from '../app/identity';
import type { HostConfig } from '../core/run/hosts';
import { FINAL_STATES, type RunRecord } from '../core/run/records';
import { configuredHosts, imageTemplates, runEnvSetting, timeouts, vllmCheckoutSetting } from './settings';
import type { FolderScan, Store } from './store';

export const HF_TOKEN_KEY = 'benchTriage.huggingFaceToken';
export const secretKey = (name: string) => `benchTriage.secret.${name}`;

export class TrustError extends Error {}

/** Refuses run/rerun/apply in an untrusted workspace (browsing stays available). */
export function requireTrust(action: string): void {
  if (!vscode.workspace.isTrusted)
    throw new TrustError(
      `Bench Triage: ${action} needs a trusted workspace (running benchmarks executes commands on a Docker host). Browsing results works untrusted.`,
    );
}

/** The agent run whose patch an entry's agent role applies: the entry's own agent's, else the commit's only one. */
export function agentRunFor(scan: FolderScan, commit: string, agent: string | null): AgentRun | null {
  const runs = scan.result.agentRuns.filter(r => r.commit === commit && r.patch && !r.patch.empty);
  return runs.find(r => r.agent === agent) ?? (agent === null || runs.length === 1 ? (runs[0] ?? null) : null);
}

/**
 * The extension's side of the app-layer Runs: settings, SecretStorage and workspace trust in; the
 * Runs view, the status bar and the Commits view out. A finished run's result.json reaches the
 * store as a file update of its own commit (no rescan).
 */
export class RunService implements vscode.Disposable {
  readonly runs = new Runs();
  private readonly changed = new vscode.EventEmitter<{ kind: RunsEvent['kind']; run: LiveRun } | undefined>();
  readonly onDidChange = this.changed.event;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    store: Store,
  ) {
    this.unsubscribe = this.runs.onEvent(e => {
      this.changed.fire({ kind: e.kind, run: e.run });
      if (e.kind === 'state' && FINAL_STATES.includes(e.run.record.status) && !e.run.fromDisk)
        void store.filesWritten(e.run.folder, [path.posix.join(e.run.record.plan.resultDir, 'result.json')]);
    });
  }

  list(): LiveRun[] {
    return this.runs.list();
  }
  active(): LiveRun[] {
    return this.runs.active();
  }

  /**
   * `benchTriage.runEnv` with its secrets' values, or an error naming each bad entry or secret
   * without a value: a Rerun or a campaign says it before it asks anything.
   */
  async runEnvFor(root: vscode.Uri): Promise<{ env: Record<string, string>; secretEnv: Record<string, string> }> {
    const { env, secretNames, problems } = runEnvSetting(root);
    if (problems.length) throw new Error(`Bench Triage: settings: ${problems.join('; ')}`);
    const secretEnv = await this.secretValues(secretNames);
    const missing = secretNames.filter(n => !(n in secretEnv));
    if (missing.length)
      throw new Error(
        `Bench Triage: secret ${missing.join(', ')} (benchTriage.runEnv) has no value: set it with "Bench Triage: Set Run Secret…", or in the environment VS Code was started from`,
      );
    return { env, secretEnv };
  }

  /** The run settings for a folder, as the CLI builds them from its options. */
  async settingsFor(root: vscode.Uri, host: HostConfig, recipes: string[]): Promise<RunSettings> {
    const { env, secretEnv } = await this.runEnvFor(root);
    const token = await this.secrets.get(HF_TOKEN_KEY);
    if (token) Object.assign(secretEnv, { HF_TOKEN: token, HUGGING_FACE_HUB_TOKEN: token });
    const t = timeouts(root);
    return {
      host,
      recipes,
      templates: imageTemplates(root),
      serverTimeoutS: t.serverS,
      benchmarkTimeoutS: t.benchmarkS,
      env,
      secretEnv,
      checkout: vllmCheckoutSetting(root),
    };
  }

  /** Plans every role first (refusals before anything runs), then starts them on the host. */
  async start(
    scan: FolderScan,
    commitHash: string,
    roles: Role[],
    opts: { host?: HostConfig; recipes?: string[]; agent?: string | null } = {},
  ): Promise<RunRecord[]> {
    requireTrust('Running a benchmark');
    if (scan.root.scheme !== 'file')
      throw new Error(`Bench Triage: runs write their logs next to the results, which needs a local folder (${scan.root.toString()} is not)`);
    const commit = scan.result.commits.find(c => c.hash === commitHash);
    if (!commit) throw new Error(`Bench Triage: commit ${commitHash.slice(0, 12)} is not in ${scan.root.fsPath}`);
    const host = opts.host ?? configuredHosts(scan.root)[0];
    const target: RunTarget = { folder: scan.root.fsPath, commit, roles, agentRun: agentRunFor(scan, commitHash, opts.agent ?? null) };
    return this.runs.start(target, await this.settingsFor(scan.root, host, opts.recipes ?? []));
  }

  /** Secret values by name: the Hugging Face token, else `benchTriage.secret.<NAME>` in SecretStorage, else the environment. */
  async secretValues(names: readonly string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const token = await this.secrets.get(HF_TOKEN_KEY);
    for (const n of names) {
      const v = (n === 'HF_TOKEN' || n === 'HUGGING_FACE_HUB_TOKEN') && token ? token : ((await this.secrets.get(secretKey(n))) ?? process.env[n]);
      if (v) out[n] = v;
    }
    return out;
  }

  cancel(key: RunKey): boolean {
    return this.runs.cancel(key);
  }

  /** The finished and unfinished runs on disk of the workspace folders (the Runs view after a reload). */
  async loadHistory(folders: readonly vscode.Uri[]): Promise<LiveRun[]> {
    const out: LiveRun[] = [];
    for (const f of folders) if (f.scheme === 'file') out.push(...(await this.runs.history(f.fsPath)));
    this.changed.fire(undefined);
    return out;
  }

  /** Re-attaches to unfinished runs of the workspace folders on every configured host (after a reload). */
  async reattach(folders: readonly vscode.Uri[]): Promise<RunRecord[]> {
    if (!vscode.workspace.isTrusted) return [];
    const out: RunRecord[] = [];
    for (const folder of folders)
      for (const host of configuredHosts(folder)) {
        // The values of a run's secrets come from SecretStorage (or the environment) again; the runner
        // falls back to the container's own copy, so a re-attached log is masked like the first.
        out.push(...(await this.runs.resume(folder.fsPath, host, names => this.secretValues(names)).catch(() => [])));
      }
    return out;
  }

  dispose(): void {
    this.runs.cancelAll();
    this.unsubscribe();
    this.changed.dispose();
  }
}
