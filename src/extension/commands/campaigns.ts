import * as vscode from 'vscode';
import type { CampaignService } from '../campaignService';
import { GroupNode } from '../tree/commitNodes';
import { CampaignNode } from '../tree/runsTree';
import { TrustError } from '../runService';
import type { Store } from '../store';
import { register } from './args';
import { COMMANDS } from './ids';

const hours = (h: number) => (h >= 1 ? `${h.toFixed(1)} GPU-hours` : `${Math.max(1, Math.round(h * 60))} GPU-minutes`);

function report(e: unknown): void {
  void vscode.window.showErrorMessage(e instanceof TrustError ? e.message : `Bench Triage: ${e instanceof Error ? e.message : String(e)}`);
}

/** Campaigns from the Commits view's groups; cancel and resume from the Runs view. */
export function registerCampaignCommands(context: vscode.ExtensionContext, store: Store, campaigns: CampaignService): void {
  register(context, COMMANDS.runGroup, async (arg?: unknown) => {
    if (!(arg instanceof GroupNode) || !arg.entries.length) {
      void vscode.window.showInformationMessage('Bench Triage: right-click a group in the Commits view to run its commits as a campaign.');
      return;
    }
    await store.ensureScanned();
    const folder = arg.entries[0].folder;
    const entries = arg.entries.filter(n => n.folder === folder).map(n => n.entry);
    const plan = campaigns.plan(folder, entries);
    const refused = plan.refusals.map(r => `${r.commit.slice(0, 8)} ${r.role ?? ''}: ${r.reason}`);
    const roles = (['baseline', 'human', 'agent'] as const).map(r => `${plan.items.filter(i => i.role === r).length} ${r}`).join(', ');
    if (!plan.items.length) {
      void vscode.window.showWarningMessage(`Bench Triage: nothing in “${arg.title}” can run.`, { modal: true, detail: refused.join('\n') });
      return;
    }
    const detail = [
      `${plan.items.length} runs (${roles}) of ${entries.length} commit${entries.length === 1 ? '' : 's'}, about ${hours(plan.gpuHours)} from the durations in the data.`,
      'Repeats run interleaved (baseline, human, agent of every commit, then again).',
      ...(refused.length ? [`Refused (${refused.length}):`, ...refused.slice(0, 12), ...(refused.length > 12 ? [`… ${refused.length - 12} more`] : [])] : []),
    ].join('\n');
    const choice = await vscode.window.showInformationMessage(`Run “${arg.title}” on H100 as a campaign?`, { modal: true, detail }, 'Start Campaign');
    if (choice !== 'Start Campaign') return;
    void vscode.commands.executeCommand('benchTriage.runs.focus');
    // The campaign runs on; its progress is in the Runs view and the status bar.
    campaigns.start(folder, plan, `group=${arg.title}`).catch(report);
    return plan;
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
