import * as vscode from 'vscode';
import { ROLES, type Role } from '../../core/model';
import { PlanRefused } from '../../app/runs';
import { planRun, PlanError } from '../../core/run/plan';
import { proposeRecipes, RECIPES } from '../../core/run/recipes';
import { configuredHosts, imageTemplates } from '../settings';
import { agentRunFor, requireTrust, TrustError, type RunService } from '../runService';
import { pipelineOf, strandedBy } from '../../core/compare';
import type { HostConfig } from '../../core/run/hosts';
import type { Store } from '../store';
import { isRole, pickCommitFirst, register, runNodeOf, targetOf, type Target } from './args';
import { COMMANDS } from './ids';
import { SCHEMES } from '../uris';

export async function pickHost(scope: vscode.Uri, title = 'Run on which host?') {
  const hosts = configuredHosts(scope);
  if (hosts.length === 1) return hosts[0];
  const pick = await vscode.window.showQuickPick(
    hosts.map(h => ({ label: h.label, description: `${h.docker || 'DOCKER_HOST'} · ${h.gpus} GPU${h.gpus === 1 ? '' : 's'}`, host: h })),
    { title },
  );
  return pick?.host;
}

function report(e: unknown): void {
  if (e instanceof TrustError) {
    void vscode.window.showWarningMessage(e.message, 'Manage Workspace Trust').then(a => a && vscode.commands.executeCommand('workbench.trust.manage'));
    return;
  }
  const msg = e instanceof PlanRefused ? `nothing started — ${e.message}` : e instanceof PlanError ? e.message : e instanceof Error ? e.message : String(e);
  void vscode.window.showErrorMessage(`Bench Triage: ${msg.replace(/^Bench Triage: /, '')}`);
}

const hostsUnset = (scope: vscode.Uri) => !(vscode.workspace.getConfiguration('benchTriage', scope).get<unknown[]>('hosts') ?? []).length;

/** Rerun, Rerun with Fix, the CodeLens runs, Run N More, Explain, Cancel. */
export function registerRunCommands(
  context: vscode.ExtensionContext,
  store: Store,
  runs: RunService,
  focusRuns: () => void,
  docs: { put(uri: vscode.Uri, text: string): vscode.Uri },
): void {
  let explained = 0;
  /**
   * Whether the host can take the run, said before anything is planned or recorded: a host that
   * cannot is a question with its remedy (set up hosts), never a refused attempt in the triage.
   */
  const hostReady = async (host: HostConfig, scope: vscode.Uri): Promise<boolean> => {
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Bench Triage: checking ${host.label}…` }, () =>
      runs.runs.hostReadiness(host, { fresh: true }),
    );
    if (r.ok) return true;
    const setUp = 'Set Up Hosts…';
    const a = await vscode.window.showWarningMessage(
      `${host.label} cannot run this`,
      {
        modal: true,
        detail: `${r.reason}\n\nNothing was started or recorded. ${hostsUnset(scope) ? 'No host is set (benchTriage.hosts): the local Docker engine stands in. ' : ''}Add a GPU host in the settings, or give this one gpus: 0 for a CPU-only test run.`,
      },
      setUp,
    );
    if (a === setUp) await vscode.commands.executeCommand('workbench.action.openWorkspaceSettings', { query: 'benchTriage.hosts' });
    return false;
  };

  /**
   * A rerun of some roles leaves the others measured by another pipeline (or not at all): the new
   * run could never be compared with them ("pipelines differ"). Asks, all three by default.
   * `scope` given ('all' | 'role') answers it in advance (tests, callers that know).
   */
  const widen = async (t: Target, scope: unknown): Promise<Target | null> => {
    // The roles a run can be made of: the agent role needs an agent patch to apply.
    const runnable = ROLES.filter(r => r !== 'agent' || t.roles.includes('agent') || agentRunFor(t.folder, t.commit, t.agent));
    if (scope === 'role' || !t.entry) return t;
    if (scope === 'all') return { ...t, roles: runnable };
    const stranded = strandedBy(t.entry, t.roles).filter(x => runnable.includes(x.role));
    if (!stranded.length) return t;
    const which = t.roles.join(' and ');
    const elsewhere = stranded.flatMap(x => {
      const run = t.entry!.roles[x.role].run;
      return run ? [`${x.role} (${pipelineOf(run)})`] : [];
    });
    const never = stranded.filter(x => !t.entry!.roles[x.role].run).map(x => x.role);
    const why = [
      elsewhere.length
        ? `${elsewhere.join(' and ')} ${elsewhere.length === 1 ? 'was' : 'were'} measured by another pipeline, and runs of different pipelines are never compared (pipelines differ).`
        : '',
      never.length ? `${never.join(' and ')} ${never.length === 1 ? 'has' : 'have'} never been measured.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const all = runnable.length === ROLES.length ? 'Rerun All Three Roles' : `Rerun ${runnable.join(' and ')}`;
    const one = `Rerun ${which} Only`;
    const a = await vscode.window.showWarningMessage(
      `A new ${which} run of ${t.commit.slice(0, 8)} could not be compared with the other roles`,
      {
        modal: true,
        detail: `This tool's runner would measure ${which}. ${why} Alone, the verdict would stay unknown; ${all} gives one comparable set.`,
      },
      all,
      one,
    );
    return a === all ? { ...t, roles: runnable } : a === one ? t : null;
  };

  const start = async (t: Target | null, recipes: string[] = [], scope?: unknown) => {
    if (!t) {
      pickCommitFirst();
      return;
    }
    try {
      requireTrust('Rerun');
      // Settings first: a bad runEnv entry is said before any host is picked or asked.
      await runs.runEnvFor(t.folder.root);
      const host = await pickHost(t.folder.root);
      if (!host) return;
      if (!(await hostReady(host, t.folder.root))) return;
      const target = await widen(t, scope);
      if (!target) return;
      const started = runs.start(target.folder, target.commit, target.roles, { host, recipes, agent: target.agent });
      focusRuns();
      const records = await started;
      const bad = records.filter(r => r.status !== 'succeeded');
      if (bad.length)
        void vscode.window.showWarningMessage(`Bench Triage: ${bad.map(r => `${r.role} ${r.status}${r.error ? ` — ${r.error}` : ''}`).join('; ')}`);
      else
        void vscode.window.showInformationMessage(
          `Bench Triage: ${records.map(r => r.role).join(', ')} of ${target.commit.slice(0, 8)} succeeded on ${host.label}.`,
        );
      // RunService handed each finished run's result.json to the store (its commit only): the
      // command ends when the tree shows it.
      await store.idle();
      return records;
    } catch (e) {
      report(e);
      return undefined;
    }
  };

  register(context, COMMANDS.rerun, async (arg?: unknown, role?: unknown, scope?: unknown) => {
    await store.ensureScanned();
    return start(targetOf(store, arg, role), [], scope);
  });
  register(context, COMMANDS.rerunWithFix, async (arg?: unknown, recipeIds?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t) return start(null);
    let ids = Array.isArray(recipeIds) && recipeIds.every(x => typeof x === 'string') ? (recipeIds as string[]) : undefined;
    if (!ids) {
      const proposed = new Set(proposeRecipes(t.cause).map(r => r.id));
      const picks = await vscode.window.showQuickPick(
        RECIPES.map(r => ({
          label: r.id,
          description: r.title,
          detail: proposed.has(r.id) ? `proposed for ${t.cause}` : undefined,
          picked: proposed.has(r.id),
        })),
        { canPickMany: true, title: `Rerun ${t.roles.join(', ')} of ${t.commit.slice(0, 8)} with fixes` },
      );
      if (!picks?.length) return;
      ids = picks.map(p => p.label);
    }
    return start(t, ids, 'role');
  });
  register(context, COMMANDS.runCommit, async (commit?: unknown, roles?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, commit);
    if (!t) {
      void vscode.window.showErrorMessage(`Bench Triage: commit ${String(commit).slice(0, 12)} is not in the workspace's results.`);
      return;
    }
    const which: Role[] = roles === 'all' ? [...ROLES] : Array.isArray(roles) && roles.length && roles.every(isRole) ? roles : [...ROLES];
    return start({ ...t, roles: which }, [], 'role');
  });
  register(context, COMMANDS.explainPlan, async (commit?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, commit);
    if (!t) {
      void vscode.window.showErrorMessage(`Bench Triage: commit ${String(commit).slice(0, 12)} is not in the workspace's results.`);
      return;
    }
    const c = t.folder.result.commits.find(x => x.hash === t.commit)!;
    const host = configuredHosts(t.folder.root)[0];
    const agentPatch = agentRunFor(t.folder, t.commit, t.agent)?.patch?.path ?? null;
    const lines = [
      `# What a run of ${t.commit.slice(0, 12)} will do`,
      '',
      `Perf command: \`${c.perfCommands[0]?.command ?? '(none)'}\``,
      `Host: ${host.label} (${host.docker || 'DOCKER_HOST'}, ${host.gpus} GPUs)`,
      '',
    ];
    for (const role of ROLES) {
      try {
        const p = planRun(c, role, { host, agentPatch, runId: '<run id>', templates: imageTemplates(t.folder.root) });
        lines.push(`## ${role}`, '', `- image \`${p.image}\`${p.agentPatch ? ` + agent patch \`${p.agentPatch}\`` : ''}`);
        if (p.server) lines.push(`- server \`${p.server.argv.join(' ')}\``, `- readiness GET ${p.server.readiness.url} (≤ ${p.server.readiness.timeoutS} s)`);
        lines.push(
          `- benchmark \`${p.benchmark.argv.join(' ')}\``,
          `- scripts from ${p.benchmark.scriptSource}`,
          `- metrics from ${p.metrics}`,
          `- results in \`${p.resultDir}\``,
          '',
        );
      } catch (e) {
        lines.push(`## ${role}`, '', `Refused: ${(e as Error).message.replace(/^refused:\s*/, '')}`, '');
      }
    }
    // A read-only document named for the commit: an Untitled buffer would ask to be saved on close.
    const uri = docs.put(vscode.Uri.from({ scheme: SCHEMES.generated, path: `/explain ${t.commit.slice(0, 8)} (${++explained}).md` }), lines.join('\n'));
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { preview: true });
  });
  register(context, COMMANDS.cancelRun, (arg?: unknown) => {
    const node = runNodeOf(arg);
    if (!node) {
      void vscode.window.showInformationMessage('Bench Triage: Cancel Run works on an active run in the Runs view.');
      return false;
    }
    const ok = runs.cancel(node.run.key);
    if (ok)
      void vscode.window.showInformationMessage(
        `Bench Triage: cancelling ${node.run.record.role} of ${node.run.record.commit.slice(0, 8)} (its container is removed; logs so far are kept).`,
      );
    return ok;
  });
}
