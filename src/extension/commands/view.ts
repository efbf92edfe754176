import * as vscode from 'vscode';
import { category } from '../../core/classify';
import { failedAttempts } from '../../core/compare';
import { GROUP_BY, isGroupBy } from '../settings';
import type { Store } from '../store';
import { filterSelector, type CommitsTree } from '../tree/commitsTree';
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
      given ??
      (await vscode.window.showInputBox({
        title: 'Filter commits',
        prompt:
          'Text (commit, subject, model, agent, category or cause), or key=value as campaigns take it: ever=wheel-missing, outcome=…, blocked=rebuild, agent=…',
        value: tree.filter,
      }));
    if (f === undefined) return;
    // A selector with an unknown key or a bad clause is said, never read as text that matches nothing.
    try {
      filterSelector(f);
    } catch (e) {
      void vscode.window.showErrorMessage(`Bench Triage: filter "${f.slice(0, 80)}": ${(e as Error).message.replace(/^--select /, '')}`);
      return;
    }
    tree.setFilter(f.slice(0, 200));
    await context.workspaceState.update('benchTriage.filter', tree.filter);
    decorate();
  });
  // History: the tree groups by each commit's latest outcome, so earlier failures are found here.
  register(context, COMMANDS.filterEverFailed, async (choice?: unknown) => {
    const counts = new Map<string, number>();
    for (const { folder, entry } of store.entries())
      for (const c of new Set(failedAttempts(entry, id => folder.classifications.get(id)?.category ?? null).map(a => a.category)))
        counts.set(c, (counts.get(c) ?? 0) + 1);
    const given = typeof choice === 'string' && counts.has(choice) ? choice : undefined;
    const pick =
      given ??
      (
        await vscode.window.showQuickPick(
          [...counts]
            .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
            .map(([id, n]) => ({
              label: category(id).title,
              description: id,
              detail: `${n} commit${n === 1 ? '' : 's'} with an attempt that failed this way`,
              id,
            })),
          { title: 'Show commits any of whose attempts failed with…', placeHolder: counts.size ? undefined : 'no failed attempt in the workspace' },
        )
      )?.id;
    if (!pick) return;
    tree.setFilter(`ever=${pick}`);
    await context.workspaceState.update('benchTriage.filter', tree.filter);
    decorate();
    return counts.get(pick) ?? 0;
  });
  register(context, COMMANDS.clearFilter, async () => {
    tree.setFilter('');
    await context.workspaceState.update('benchTriage.filter', '');
    decorate();
  });
  register(context, COMMANDS.dashboard, () => webviews.showDashboard());
  register(context, COMMANDS.exportReport, (target?: unknown) => webviews.exportReport(target instanceof vscode.Uri ? target : undefined));
}
