import * as vscode from 'vscode';
import { diffAgentVsHuman, type DiffDocuments } from '../patchDiff';
import type { Store } from '../store';
import type { Webviews } from '../webviews';
import { pickCommitFirst, register, targetOf } from './args';
import { COMMANDS } from './ids';

/** Compare (the 3-way webview) and the agent-vs-human diff, on an entry node, a role node, a commit hash or `{ commit, agent }`. */
export function registerCompareCommands(context: vscode.ExtensionContext, store: Store, webviews: Webviews, diffDocs: DiffDocuments): void {
  register(context, COMMANDS.compare, async (arg?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t) {
      pickCommitFirst();
      return;
    }
    return webviews.showComparison(t.commit, t.agent);
  });
  register(context, COMMANDS.diffAgentVsHuman, async (arg?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t) {
      pickCommitFirst();
      return;
    }
    return diffAgentVsHuman(store, diffDocs, t.commit, t.agent);
  });
}
