import * as vscode from 'vscode';
import { planAblations, type CommitAblation } from '../../app/ablation';
import { createAblationCampaign } from '../../app/ablationCampaign';
import { DESIGNS, type Design } from '../../core/ablate/designs';
import type { CampaignService } from '../campaignService';
import { requireTrust } from '../runService';
import { configuredHosts, vllmCheckoutSetting } from '../settings';
import type { Store } from '../store';
import { register, targetOf } from './args';
import { COMMANDS } from './ids';
import type { AblationViews } from '../ablationView';
import { CampaignNode } from '../tree/runsTree';

const WHAT: Record<Design, string> = {
  'leave-one-out': 'the full patch minus each unit: what each unit carries',
  'each-alone': 'the parent plus each unit: what each unit does by itself',
  minimise: 'delta debugging: the smallest subset that keeps the full patch’s effect',
};

const hours = (h: number) => (h < 10 ? h.toFixed(2) : h.toFixed(0));

/** *Ablate Agent Patch…*: the design and repeats asked, the plan shown in a modal, then the campaign; its Ablation view opens at its end. */
export function registerAblateCommands(context: vscode.ExtensionContext, store: Store, campaigns: CampaignService, views: AblationViews): void {
  register(context, COMMANDS.ablatePatch, async (arg?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t) {
      void vscode.window.showInformationMessage('Bench Triage: Ablate Agent Patch works on a commit of the Commits view (or the lens of an agent patch).');
      return;
    }
    requireTrust('Ablating a patch');
    const root = t.folder.root;
    const host = configuredHosts(root)[0];
    const planOf = async (design: Design, repeats: number) =>
      planAblations({
        folder: root.fsPath,
        commits: t.folder.result.commits,
        entries: t.folder.entries,
        agentRuns: t.folder.result.agentRuns,
        commit: t.commit,
        agent: t.agent ?? undefined,
        patch: 'agent',
        design,
        repeats,
        host,
        checkout: vllmCheckoutSetting(root),
      });
    const first = await planOf('leave-one-out', 3);
    if (!first.plans.length) {
      void vscode.window.showWarningMessage(`Bench Triage: cannot ablate ${t.commit.slice(0, 12)}: ${first.refusals[0]?.reason ?? 'no agent patch'}.`);
      return;
    }
    const units = first.plans[0].units.length;
    const design = await vscode.window.showQuickPick(
      await Promise.all(
        DESIGNS.map(async d => {
          const p = (await planOf(d, 3)).plans[0].plan;
          return {
            label: d,
            description: `${p.maxTests !== null ? '≤ ' : ''}${p.maxRuns} runs at 3 repeats, ≤ ${hours(p.gpuHours)} GPU-hours`,
            detail: WHAT[d],
            design: d,
          };
        }),
      ),
      { title: `Ablate the agent patch of ${t.commit.slice(0, 12)}: ${units} unit${units === 1 ? '' : 's'} — which design?`, ignoreFocusOut: true },
    );
    if (!design) return;
    const repeatsText = await vscode.window.showInputBox({
      title: 'Repeats of each variant (interleaved; 4 or more for a verdict with an interval)',
      value: '3',
      ignoreFocusOut: true,
      validateInput: v => (/^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 100 ? null : 'a whole number from 1 to 100'),
    });
    if (!repeatsText) return;
    const r = await planOf(design.design, Number(repeatsText));
    const ab: CommitAblation | undefined = r.plans[0];
    if (!ab) return;
    const p = ab.plan;
    const detail = [
      ...ab.units.map(u => `${u.id}  +${u.added} −${u.removed}  ${u.label}`),
      ...ab.merges.map(m => `${m.into} takes ${m.from.join(', ')}: ${m.why}`),
      '',
      `${p.design}: ${p.variants.length} variants × ${p.repeats} repeats = ${p.runs.length} runs${p.maxTests !== null ? `, then up to ${p.maxTests} subsets × ${p.repeats}` : ''}; ≤ ${hours(p.gpuHours)} GPU-hours on ${host.label}.`,
      ab.checked === 'parent' ? 'Each unit applies alone on the parent.' : `Units not checked on the parent (${ab.uncheckedWhy}).`,
    ].join('\n');
    const go = await vscode.window.showWarningMessage(
      `Ablate the agent patch of ${ab.commit.slice(0, 12)} (${ab.agent ?? 'agent'}) in ${ab.units.length} unit${ab.units.length === 1 ? '' : 's'}?`,
      { modal: true, detail },
      'Start',
    );
    if (go !== 'Start') return;
    const queue = await createAblationCampaign(root.fsPath, ab, ab.files, { hosts: configuredHosts(root).map(h => h.label) });
    void vscode.commands.executeCommand('benchTriage.runs.focus');
    const s = await campaigns.runAblation(t.folder, queue);
    await views.show(root, queue.record.id);
    void vscode.window.showInformationMessage(
      `Bench Triage: ablation of ${ab.commit.slice(0, 12)}: ${s.done} runs succeeded, ${s.failed} failed${s.cancelled ? `, ${s.cancelled} cancelled` : ''} of ${s.total}; each unit's effect is in the Ablation view and above its hunk in the agent patch.`,
    );
  });

  // A campaign of the Runs view: its Ablation view (while it runs, too: the figures so far).
  register(context, COMMANDS.showAblation, async (arg?: unknown) => {
    if (!(arg instanceof CampaignNode) || !arg.view.id.startsWith('ablate-')) {
      void vscode.window.showInformationMessage('Bench Triage: right-click an ablation campaign in the Runs view to show it.');
      return;
    }
    await views.show(arg.view.folder, arg.view.id);
  });
}
