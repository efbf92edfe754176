import * as vscode from 'vscode';
import { LogIndexer } from '../../core/logs/logIndex';
import { lineChunks } from '../../platform/lineChunks';

/**
 * Logs above VS Code's 50 MB limit for extensions cannot be read through the document API, so
 * they open directly in the editor (`vscode.open`) and their first error is found by streaming the
 * file on disk — never by cutting it.
 */
export async function firstErrorLine(file: string, token?: vscode.CancellationToken): Promise<{ line: number; text: string } | null> {
  const ix = new LogIndexer();
  const ctl = new AbortController();
  token?.onCancellationRequested(() => ctl.abort());
  // A line is judged on its first 64 KB; longer lines arrive in pieces and are not kept whole.
  const decoder = new TextDecoder('utf-8');
  let partial = '';
  for await (const chunk of lineChunks(file, 4 * 1024 * 1024, ctl.signal)) {
    const text = decoder.decode(chunk, { stream: true });
    let s = 0;
    for (;;) {
      const e = text.indexOf('\n', s);
      if (e === -1) {
        if (partial.length < 65536) partial += text.slice(s, s + 65536 - partial.length);
        break;
      }
      ix.line(partial + text.slice(s, Math.min(e, s + 65536)));
      partial = '';
      s = e + 1;
    }
    if (ix.firstErrorSoFar) return ix.firstErrorSoFar;
  }
  if (partial) ix.line(partial);
  return ix.firstErrorSoFar;
}

export async function openLarge(uri: vscode.Uri, line?: number): Promise<void> {
  const selection = line ? new vscode.Range(line - 1, 0, line - 1, 0) : undefined;
  await vscode.commands.executeCommand('vscode.open', uri, { preview: false, selection });
}

/** Go to First Error in a file too large for the document API: stream, then reveal the line. */
export async function goToFirstErrorInFile(uri: vscode.Uri): Promise<number | null> {
  const hit = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Bench Triage: finding the first error', cancellable: true },
    (_p, token) => firstErrorLine(uri.fsPath, token),
  );
  if (!hit) {
    void vscode.window.showInformationMessage('Bench Triage: no error line in this log.');
    return null;
  }
  await openLarge(uri, hit.line);
  return hit.line;
}
