import * as vscode from 'vscode';
import type { Store } from './store';
import { COMMANDS } from './commands/ids';
import { evidenceUri } from './evidence';

/**
 * In a log of a run no rule explains, a lens on each of its last error lines (the places a person
 * starts reading): *Create Rule from This Line*. The lines are the classifier's candidates.
 */
export class UnclassifiedLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly store: Store) {
    store.onDidChange(() => this.changed.fire());
  }

  dispose(): void {
    this.changed.dispose();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const key = doc.uri.toString();
    const lines = new Set<number>();
    for (const { folder, entry } of this.store.entries())
      for (const role of Object.values(entry.roles)) {
        const c = role.classification;
        if (c?.category !== 'unclassified') continue;
        for (const ev of c.candidates ?? []) if (evidenceUri(folder.root, ev).toString() === key && ev.line <= doc.lineCount) lines.add(ev.line);
      }
    return [...lines]
      .sort((a, b) => a - b)
      .map(
        line =>
          new vscode.CodeLens(doc.lineAt(line - 1).range, {
            title: '$(lightbulb) No rule explains this run: Create Rule from This Line',
            command: COMMANDS.createRuleFromSelection,
            arguments: [{ uri: key, line }],
          }),
      );
  }
}
