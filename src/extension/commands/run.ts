import * as vscode from 'vscode';
import { ROLES, type Role } from '../../core/model';
import { PlanRefused } from '../../app/runs';
import { planRun, PlanError } from '../../runner/plan';
import { proposeRecipes, RECIPES } from '../../runner/recipes';
import { configuredHosts, imageTemplates } from '../settings';
import { agentRunFor, TrustError, type RunService } from '../runService';
import type { Store } from '../store';
import { isRole, pickCommitFirst, register, runNodeOf, targetOf, type Target } from './args';
import { COMMANDS } from './ids';

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
  const msg = e instanceof PlanRefused ? `refused: ${e.message}` : e instanceof PlanError ? e.message : e instanceof Error ? e.message : String(e);
  void vscode.window.showErrorMessage(`Bench Triage: ${msg.replace(/^Bench Triage: /, '')}`);
}

/** Rerun, Rerun with Fix, the CodeLens runs, Run N More, Explain, Cancel. */
export function registerRunCommands(context: vscode.ExtensionContext, store: Store, runs: RunService, focusRuns: () => void): void {
  const start = async (t: Target | null, recipes: string[] = []) => {
    if (!t) {
      pickCommitFirst();
      return;
    }
    try {
      const host = await pickHost(t.folder.root);
      if (!host) return;
      const started = runs.start(t.folder, t.commit, t.roles, { host, recipes, agent: t.agent });
      focusRuns();
      const records = await started;
      const bad = records.filter(r => r.status !== 'succeeded');
      if (bad.length)
        void vscode.window.showWarningMessage(`Bench Triage: ${bad.map(r => `${r.role} ${r.status}${r.error ? ` — ${r.error}` : ''}`).join('; ')}`);
      else
        void vscode.window.showInformationMessage(
          `Bench Triage: ${records.map(r => r.role).join(', ')} of ${t.commit.slice(0, 8)} succeeded on ${host.label}.`,
        );
      // The finished runs' result files reach the tree through the store (their commit only).
      await store.update([]);
      return records;
    } catch (e) {
      report(e);
      return undefined;
    }
  };

  register(context, COMMANDS.rerun, async (arg?: unknown, role?: unknown) => {
    await store.ensureScanned();
    return start(targetOf(store, arg, role));
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
    return start(t, ids);
  });
  register(context, COMMANDS.runCommit, async (commit?: unknown, roles?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, commit);
    if (!t) {
      void vscode.window.showErrorMessage(`Bench Triage: commit ${String(commit).slice(0, 12)} is not in the workspace's results.`);
      return;
    }
    const which: Role[] = roles === 'all' ? [...ROLES] : Array.isArray(roles) && roles.length && roles.every(isRole) ? roles : [...ROLES];
    return start({ ...t, roles: which });
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
        lines.push(`## ${role}`, '', `Refused: ${(e as Error).message}`, '');
      }
    }
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: lines.join('\n') });
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
