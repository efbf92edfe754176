import * as path from 'node:path';
import * as vscode from 'vscode';
import { goToFirstError } from '../logView/logLanguage';
import { goToFirstErrorInFile } from '../logView/largeLog';
import { openFile, openLogFile, openRunTranscript } from '../evidence';
import { embeddedLogUri } from '../uris';
import { positionArg, register, roleNodeOf, runNodeOf, uriArg } from './args';
import { COMMANDS } from './ids';

/** Opening things: files at a position, a role's log or result, a run's transcript, the first error of a log. */
export function registerOpenCommands(context: vscode.ExtensionContext): void {
  register(context, COMMANDS.openFile, (uri?: unknown, at?: unknown) => {
    const u = uriArg(uri);
    return u ? openFile(u, positionArg(at)) : undefined;
  });
  register(context, COMMANDS.openLogFile, (uri?: unknown) => {
    const u = uriArg(uri);
    return u ? openLogFile(u) : undefined;
  });
  register(context, COMMANDS.goToFirstError, (line?: unknown) => goToFirstError(Number.isInteger(line) && (line as number) > 0 ? (line as number) : undefined));
  register(context, COMMANDS.goToFirstErrorInFile, (uri?: unknown) => {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const target = uriArg(uri) ?? (input instanceof vscode.TabInputText ? input.uri : undefined);
    return target ? goToFirstErrorInFile(target) : undefined;
  });
  register(context, COMMANDS.openLog, async (arg?: unknown) => {
    const node = roleNodeOf(arg);
    if (!node) {
      void vscode.window.showInformationMessage('Bench Triage: Open Log works on a role of a commit in the Commits view.');
      return;
    }
    const run = node.run;
    // The log that holds the evidence (at its line), else the benchmark's output, else the last phase's.
    const ev = node.view.classification?.evidence;
    if (ev && !ev.field && run.logFiles.includes(ev.file)) {
      const ed = await openLogFile(vscode.Uri.joinPath(node.folder.root, ev.file));
      if (ed && ev.line <= ed.document.lineCount) {
        const r = ed.document.lineAt(ev.line - 1).range;
        ed.selection = new vscode.Selection(r.start, r.end);
        ed.revealRange(r, vscode.TextEditorRevealType.InCenter);
      }
      return ed;
    }
    const own = run.logFiles.find(f => /benchmark\.stdout\.log$/.test(f)) ?? run.logFiles.filter(f => /\.stdout\.log$/.test(f)).at(-1) ?? run.logFiles[0];
    if (own) return openLogFile(vscode.Uri.joinPath(node.folder.root, own));
    const log = run.logs[0];
    if (!log) {
      void vscode.window.showInformationMessage(`Bench Triage: the ${node.role} result of ${node.entry.commit.slice(0, 8)} has no log.`);
      return;
    }
    if (log.truncation)
      void vscode.window.showWarningMessage(
        `Bench Triage: this log was already cut by the pipeline that wrote it: only the ${log.truncation.kind === 'tail' ? 'last' : 'first'} ${log.truncation.cap.toLocaleString()} characters were kept (field ${log.field}). Rerun to get the complete log.`,
      );
    const doc = await vscode.workspace.openTextDocument(embeddedLogUri(vscode.Uri.joinPath(node.folder.root, run.provenance.file), log.field));
    return vscode.window.showTextDocument(doc, { preview: false });
  });
  register(context, COMMANDS.openResult, (arg?: unknown) => {
    const node = roleNodeOf(arg);
    return node ? vscode.window.showTextDocument(vscode.Uri.joinPath(node.folder.root, node.run.provenance.file)) : undefined;
  });
  // The whole run in one document that follows it: every phase in order under phase headers.
  register(context, COMMANDS.openRunLog, (arg?: unknown) => {
    const node = runNodeOf(arg);
    if (!node) {
      void vscode.window.showInformationMessage('Bench Triage: Open Live Log works on a run in the Runs view.');
      return;
    }
    return openRunTranscript(path.join(node.run.folder, node.run.record.plan.resultDir));
  });
}
