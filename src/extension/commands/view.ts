import * as vscode from 'vscode';
import { GROUP_BY, isGroupBy } from '../settings';
import type { Store } from '../store';
import type { CommitsTree } from '../tree/commitsTree';
import type { Webviews } from '../webviews';
import { register, stringArg } from './args';
import { COMMANDS } from './ids';

/**
 * The Commits view's own buttons: Refresh, Cancel Scan, Group By, Filter, Clear Filter, Dashboard,
 * Export Report. From the title bar VS Code passes the selected tree node as the first argument:
 * only a value of the expected type is taken, anything else means "ask".
 */
export function registerViewCommands(context: vscode.ExtensionContext, store: Store, tree: CommitsTree, webviews: Webviews, decorate: () => void): void {
  register(context, COMMANDS.refresh, () => store.rescan());
  register(context, COMMANDS.cancelScan, () => {
    if (store.cancel()) void vscode.window.showInformationMessage('Bench Triage: scan cancelled; the view keeps the previous results.');
  });
  register(context, COMMANDS.groupBy, async (choice?: unknown) => {
    const pick = isGroupBy(choice)
      ? choice
      : (
          await vscode.window.showQuickPick(
            [...GROUP_BY].map(g => ({ label: g, picked: g === tree.groupBy, description: g === tree.groupBy ? 'current' : undefined })),
            { title: 'Group commits by', placeHolder: tree.groupBy },
          )
        )?.label;
    if (!isGroupBy(pick) || pick === tree.groupBy) return pick;
    await vscode.workspace.getConfiguration('benchTriage').update('groupBy', pick, vscode.ConfigurationTarget.Workspace);
    return pick;
  });
  register(context, COMMANDS.filter, async (value?: unknown) => {
    const given = stringArg(value);
    const f =
      given ?? (await vscode.window.showInputBox({ title: 'Filter commits', prompt: 'Commit, subject, model, agent, category or cause', value: tree.filter }));
    if (f === undefined) return;
    tree.setFilter(f.slice(0, 200));
    await context.workspaceState.update('benchTriage.filter', tree.filter);
    decorate();
  });
  register(context, COMMANDS.clearFilter, async () => {
    tree.setFilter('');
    await context.workspaceState.update('benchTriage.filter', '');
    decorate();
  });
  register(context, COMMANDS.dashboard, () => webviews.showDashboard());
  register(context, COMMANDS.exportReport, (target?: unknown) => webviews.exportReport(target instanceof vscode.Uri ? target : undefined));
}
