import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Evidence } from '../core/classify';
import { goToFirstErrorInFile, openLarge } from './logView/largeLog';
import { follow } from './logView/follow';
import { embeddedLogUri, liveLogUri, runTranscriptUri } from './uris';

/** Logs above this open directly (no preview, highlighting off in VS Code) with a notice: never cut. */
export const LARGE_LOG_BYTES = 50 * 1024 * 1024;

/** Where a piece of evidence lives: its file, or the JSON field of its file as a log document. */
export function evidenceUri(root: vscode.Uri, ev: Pick<Evidence, 'file' | 'field'>): vscode.Uri {
  const file = vscode.Uri.joinPath(root, ev.file);
  return ev.field ? embeddedLogUri(file, ev.field) : file;
}

/**
 * Opens a document at a position: an evidence line is selected whole, a parser position is a
 * caret. Documents of the log language or above the large tier take their own paths.
 */
export async function openFile(uri: vscode.Uri, at?: { line: number; column: number }): Promise<vscode.TextEditor | undefined> {
  if (uri.scheme === 'file') {
    const size = (await fs.stat(uri.fsPath).catch(() => null))?.size ?? 0;
    if (size > LARGE_LOG_BYTES) {
      await openLarge(uri, at?.line);
      return undefined;
    }
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const pos = at ? new vscode.Position(Math.max(0, Math.min(at.line, doc.lineCount) - 1), Math.max(0, at.column - 1)) : undefined;
  const range = pos && at!.column <= 1 ? doc.lineAt(pos.line).range : pos ? new vscode.Range(pos, pos) : undefined;
  return vscode.window.showTextDocument(doc, { preview: true, selection: range });
}

/**
 * The one way evidence opens — from the tree, the Compare view, the run commands: the evidence
 * line of its file (or of its JSON field's log), selected.
 */
export function openEvidence(root: vscode.Uri, ev: Pick<Evidence, 'file' | 'field' | 'line'>): Promise<vscode.TextEditor | undefined> {
  return openFile(evidenceUri(root, ev), { line: ev.line, column: 1 });
}

/** A log file on disk in full: live (tailing) under the runs folder, directly above the large tier. */
export async function openLogFile(uri: vscode.Uri): Promise<vscode.TextEditor | undefined> {
  const size = (await fs.stat(uri.fsPath).catch(() => null))?.size ?? 0;
  if (size > LARGE_LOG_BYTES) {
    // VS Code does not give extensions documents above 50 MB: open the file itself, in full.
    await openLarge(uri);
    void vscode.window
      .showInformationMessage(
        `Bench Triage: ${path.basename(uri.fsPath)} is ${(size / 1024 ** 2).toFixed(0)} MB — opened in full (nothing cut); VS Code turns highlighting and folding off for files this large.`,
        'Go to First Error',
      )
      .then(a => a && goToFirstErrorInFile(uri));
    return undefined;
  }
  const live = uri.scheme === 'file' && /\/\.bench-triage\/(?:runs|builds)\//.test(uri.path);
  const doc = await vscode.workspace.openTextDocument(live ? liveLogUri(uri) : uri);
  if (doc.languageId !== 'vllm-log') await vscode.languages.setTextDocumentLanguage(doc, 'vllm-log');
  return vscode.window.showTextDocument(doc, { preview: false });
}

/** A run's transcript: every phase in order under headers, following the run while it lasts. */
export async function openRunTranscript(runDir: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(runTranscriptUri(runDir));
  if (doc.languageId !== 'vllm-log') await vscode.languages.setTextDocumentLanguage(doc, 'vllm-log');
  const ed = await vscode.window.showTextDocument(doc, { preview: false });
  follow(ed);
  return ed;
}

/** A build's log, following the build: the engine's stream as it arrives, the caret at the end. */
export async function openBuildLog(file: string): Promise<vscode.TextEditor | undefined> {
  const ed = await openLogFile(vscode.Uri.file(file));
  if (ed) follow(ed);
  return ed;
}
