import * as vscode from 'vscode';
import { indexLog, type LogIndex } from '../../core/logs';
import { selectInEditor } from './follow';

/**
 * Structure of `vllm-log` documents from the core log index: folding per phase, traceback and
 * result block; outline symbols for the same; cached per document version.
 */
const cache = new WeakMap<vscode.TextDocument, { version: number; ix: LogIndex }>();
export function logIndexOf(doc: vscode.TextDocument): LogIndex {
  const hit = cache.get(doc);
  if (hit && hit.version === doc.version) return hit.ix;
  const ix = indexLog(doc.getText());
  cache.set(doc, { version: doc.version, ix });
  return ix;
}

export class LogFolding implements vscode.FoldingRangeProvider {
  provideFoldingRanges(doc: vscode.TextDocument): vscode.FoldingRange[] {
    const ix = logIndexOf(doc);
    const out: vscode.FoldingRange[] = [];
    for (const p of ix.phases) if (p.endLine > p.startLine) out.push(new vscode.FoldingRange(p.startLine - 1, p.endLine - 1, vscode.FoldingRangeKind.Region));
    for (const t of [...ix.tracebacks, ...ix.resultBlocks]) if (t.endLine > t.startLine) out.push(new vscode.FoldingRange(t.startLine - 1, t.endLine - 1));
    return out;
  }
}

export class LogSymbols implements vscode.DocumentSymbolProvider {
  provideDocumentSymbols(doc: vscode.TextDocument): vscode.DocumentSymbol[] {
    const ix = logIndexOf(doc);
    const range = (a: number, b: number) => new vscode.Range(a - 1, 0, b - 1, doc.lineAt(Math.min(b, doc.lineCount) - 1).text.length);
    const phases = ix.phases.map(
      p =>
        new vscode.DocumentSymbol(
          p.name,
          `lines ${p.startLine}–${p.endLine}`,
          vscode.SymbolKind.Namespace,
          range(p.startLine, p.endLine),
          range(p.startLine, p.startLine),
        ),
    );
    const spans = [
      ...ix.tracebacks.map(
        t => new vscode.DocumentSymbol(t.title, 'traceback', vscode.SymbolKind.Event, range(t.startLine, t.endLine), range(t.endLine, t.endLine)),
      ),
      ...ix.resultBlocks.map(
        r => new vscode.DocumentSymbol(r.title, 'metrics', vscode.SymbolKind.Object, range(r.startLine, r.endLine), range(r.startLine, r.startLine)),
      ),
    ];
    // Tracebacks and result blocks nest under the phase that holds them.
    const loose: vscode.DocumentSymbol[] = [];
    for (const s of spans) {
      const parent = phases.find(p => p.range.contains(s.range));
      (parent ? parent.children : loose).push(s);
    }
    return [...phases, ...loose].sort((a, b) => a.range.start.line - b.range.start.line);
  }
}

/** Selects the first error line of the active log (or the evidence line, when a caller gives one). */
export async function goToFirstError(line?: number): Promise<void> {
  const ed = vscode.window.activeTextEditor;
  if (!ed) {
    void vscode.window.showInformationMessage('Bench Triage: open a log first.');
    return;
  }
  const target = line ?? logIndexOf(ed.document).firstError?.line;
  if (!target) {
    void vscode.window.showInformationMessage('Bench Triage: no error line in this log.');
    return;
  }
  const r = ed.document.lineAt(target - 1).range;
  selectInEditor(ed, new vscode.Selection(r.start, r.end), vscode.TextEditorRevealType.InCenter);
}
