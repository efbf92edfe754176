import * as path from 'node:path';
import * as vscode from 'vscode';
import { refusalLines } from '../../core/campaign/plan';
import { suggestedRepeats, type CommitTriage } from '../../core/compare';
import type { CampaignService } from '../campaignService';
import { EntryNode, GroupNode } from '../tree/commitNodes';
import { CampaignNode } from '../tree/runsTree';
import { TrustError } from '../runService';
import type { FolderScan, Store } from '../store';
import { register, targetOf, uriArg } from './args';
import { COMMANDS } from './ids';

const hours = (h: number) => (h >= 1 ? `${h.toFixed(1)} GPU-hours` : `${Math.max(1, Math.round(h * 60))} GPU-minutes`);

function report(e: unknown): void {
  void vscode.window.showErrorMessage(e instanceof TrustError ? e.message : `Bench Triage: ${e instanceof Error ? e.message : String(e)}`);
}

/** One entry per commit (the commit's own roles, and its agent's), for campaigns picked by commit. */
function onePerCommit(entries: readonly CommitTriage[]): CommitTriage[] {
  const by = new Map<string, CommitTriage>();
  for (const e of entries) if (!by.has(e.commit) || (by.get(e.commit)!.agent === null && e.agent !== null)) by.set(e.commit, e);
  return [...by.values()];
}

/**
 * Campaigns from the Commits view (a group, a multi-selection), a dataset file (CodeLens), and a
 * verdict's Run N more; cancel and resume from the Runs view. Every one shows its plan first.
 */
export function registerCampaignCommands(context: vscode.ExtensionContext, store: Store, campaigns: CampaignService): void {
  /** The plan summary (runs, GPU-hours from the data, refusals with reasons), then the user's go. */
  const propose = async (folder: FolderScan, entries: CommitTriage[], what: string, select: string, repeats = 1) => {
    // Every run would fail on it: said now, not as each run of the campaign breaks.
    try {
      await campaigns.checkRunEnv(folder);
    } catch (e) {
      report(e);
      return;
    }
    const plan = campaigns.plan(folder, entries, repeats);
    const refused = refusalLines(plan.refusals);
    const roles = (['baseline', 'human', 'agent'] as const).map(r => `${plan.items.filter(i => i.role === r).length} ${r}`).join(', ');
    if (!plan.items.length) {
      void vscode.window.showWarningMessage(`Bench Triage: nothing in “${what}” can run.`, { modal: true, detail: refused.join('\n') });
      return;
    }
    const detail = [
      `${plan.items.length} runs (${roles}) of ${entries.length} commit${entries.length === 1 ? '' : 's'}, about ${hours(plan.gpuHours)} from the durations in the data.`,
      repeats > 1
        ? `${repeats} rounds, interleaved (baseline, human, agent of every commit, then again), so that drift of the host hits every role alike.`
        : 'Repeats run interleaved (baseline, human, agent of every commit, then again).',
      ...(refused.length
        ? [
            `Refused (${plan.refusals.length} run${plan.refusals.length === 1 ? '' : 's'}):`,
            ...refused.slice(0, 12),
            ...(refused.length > 12 ? [`… ${refused.length - 12} more`] : []),
          ]
        : []),
    ].join('\n');
    const choice = await vscode.window.showInformationMessage(`Run “${what}” on H100 as a campaign?`, { modal: true, detail }, 'Start Campaign');
    if (choice !== 'Start Campaign') return;
    void vscode.commands.executeCommand('benchTriage.runs.focus');
    // The campaign runs on; its progress is in the Runs view and the status bar.
    campaigns.start(folder, plan, select, repeats).catch(report);
    return plan;
  };

  register(context, COMMANDS.runGroup, async (arg?: unknown) => {
    if (!(arg instanceof GroupNode) || !arg.entries.length) {
      void vscode.window.showInformationMessage('Bench Triage: right-click a group in the Commits view to run its commits as a campaign.');
      return;
    }
    await store.ensureScanned();
    const folder = arg.entries[0].folder;
    return propose(
      folder,
      arg.entries.filter(n => n.folder === folder).map(n => n.entry),
      arg.title,
      `group=${arg.title}`,
    );
  });

  // VS Code passes the clicked node and then every selected node.
  register(context, COMMANDS.runSelection, async (arg?: unknown, selection?: unknown) => {
    const nodes = (Array.isArray(selection) ? selection : [arg]).filter((n): n is EntryNode => n instanceof EntryNode);
    if (!nodes.length) {
      void vscode.window.showInformationMessage('Bench Triage: select commits in the Commits view (Ctrl/Cmd-click), then right-click one of them.');
      return;
    }
    await store.ensureScanned();
    const folder = nodes[0].folder;
    const entries = nodes.filter(n => n.folder === folder).map(n => n.entry);
    const names = entries.map(e => e.commit.slice(0, 8));
    return propose(folder, entries, `${entries.length} selected commit${entries.length === 1 ? '' : 's'}`, `commit=${names.join('|')}`);
  });

  // CodeLens of a dataset file: every commit whose perf command the file states.
  register(context, COMMANDS.runCampaign, async (arg?: unknown, commitList?: unknown) => {
    const uri = uriArg(arg) ?? (typeof arg === 'string' ? vscode.Uri.file(arg) : undefined);
    if (!uri) {
      void vscode.window.showInformationMessage('Bench Triage: Run Campaign works from the lens at the top of a dataset file.');
      return;
    }
    await store.ensureScanned();
    const folder = store.scans.find(s => uri.fsPath.startsWith(s.root.fsPath + path.sep));
    if (!folder) {
      void vscode.window.showInformationMessage(`Bench Triage: ${uri.fsPath} is not in a scanned folder.`);
      return;
    }
    const rel = path.relative(folder.root.fsPath, uri.fsPath).split(path.sep).join('/');
    // The lens names the commits of the file's perf-command lines; otherwise those the scan read from it.
    const given = Array.isArray(commitList) ? commitList.filter((c): c is string => typeof c === 'string') : null;
    const commits = new Set(
      given ?? folder.result.commits.filter(c => c.perfCommands.some(p => p.source === rel || p.source.startsWith(`${rel}:`))).map(c => c.hash),
    );
    const entries = onePerCommit(folder.entries.filter(e => commits.has(e.commit)));
    if (!entries.length) {
      void vscode.window.showInformationMessage(`Bench Triage: no commit of ${rel} has results to rerun.`);
      return;
    }
    return propose(folder, entries, path.basename(rel), `file=${rel}`);
  });

  // The verdict's Run N more (Compare view): every role N more times, through the durable queue.
  register(context, COMMANDS.runMore, async (commit?: unknown, agent?: unknown, n?: unknown) => {
    await store.ensureScanned();
    // From the Commits view (an entry whose verdict is unknown or a single-run hint): as many as the verdict needs.
    if (commit instanceof EntryNode) {
      const e = commit.entry;
      [commit, agent, n] = [e.commit, e.agent, suggestedRepeats({ human: e.roles.human.attempts.length, agent: e.roles.agent.attempts.length })];
    }
    const t = targetOf(store, { commit, agent: typeof agent === 'string' ? agent : null });
    if (!t?.entry || !Number.isInteger(n) || (n as number) < 1 || (n as number) > 20) {
      void vscode.window.showInformationMessage('Bench Triage: Run N more needs a commit and a number of attempts from 1 to 20 (from the Compare view).');
      return;
    }
    const count = n as number;
    return propose(
      t.folder,
      [t.entry],
      `${count} more attempt${count === 1 ? '' : 's'} of ${t.commit.slice(0, 8)}${t.agent ? ` (agent ${t.agent})` : ''}`,
      `commit=${t.commit.slice(0, 8)} more=${count}`,
      count,
    );
  });

  register(context, COMMANDS.cancelCampaign, async (arg?: unknown) => {
    if (!(arg instanceof CampaignNode)) {
      void vscode.window.showInformationMessage('Bench Triage: right-click a campaign in the Runs view to cancel it.');
      return;
    }
    await campaigns.cancel(arg.view.folder, arg.view.id);
  });

  register(context, COMMANDS.resumeCampaign, async (arg?: unknown) => {
    if (!(arg instanceof CampaignNode)) {
      void vscode.window.showInformationMessage('Bench Triage: right-click a campaign in the Runs view to resume it.');
      return;
    }
    await store.ensureScanned();
    const scan = store.scans.find(s => s.root.toString() === arg.view.folder.toString());
    if (!scan) return;
    campaigns.resume(scan, arg.view.id).catch(report);
  });
}
