import * as vscode from 'vscode';
import { CATEGORIES, category, labelLines, parseLabels, withLabel, withoutLabel, type Label } from '../../core/classify';
import type { Store } from '../store';
import { RoleNode } from '../tree/commitNodes';
import { register } from './args';
import { COMMANDS } from './ids';

/** `.bench-triage/labels.json` of a folder: its labels, or why it cannot be used (nothing is then written). */
export async function readLabels(root: vscode.Uri): Promise<{ labels: Label[] } | { error: string }> {
  const file = vscode.Uri.joinPath(root, '.bench-triage', 'labels.json');
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(file);
  } catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') return { labels: [] };
    return { error: `cannot read ${vscode.workspace.asRelativePath(file)} (${e instanceof Error ? e.message : String(e)})` };
  }
  const { labels, problems } = parseLabels(new TextDecoder().decode(bytes));
  // A file with problems is not rewritten: the labels it would lose are the person's work.
  if (problems.length)
    return { error: `${vscode.workspace.asRelativePath(file)}: ${problems[0].field ? `${problems[0].field}: ` : ''}${problems[0].message}; fix it first` };
  return { labels };
}

/**
 * *Set Category…* on a role: the person's category for the run, kept with the evidence lines in
 * `.bench-triage/labels.json`. It overrides the run's category, teaches the learned stage (runs
 * no rule explains are asked again) and is offered as a rule draft.
 */
export function registerLabelCommands(context: vscode.ExtensionContext, store: Store): void {
  register(context, COMMANDS.setCategory, async (arg?: unknown, preset?: unknown) => {
    if (!(arg instanceof RoleNode)) {
      void vscode.window.showInformationMessage(
        'Bench Triage: right-click a role (baseline, human or agent) of a commit in the Commits view to set its category.',
      );
      return;
    }
    const node = arg;
    const loaded = await readLabels(node.folder.root);
    if ('error' in loaded) {
      void vscode.window.showErrorMessage(`Bench Triage: ${loaded.error}; nothing was written.`);
      return;
    }
    const run = node.run;
    const c = node.view.classification;
    const mine = loaded.labels.find(l => l.run === run.id);
    const CLEAR = '$clear';
    const chosen =
      typeof preset === 'string' && (CATEGORIES.some(x => x.id === preset) || preset === CLEAR)
        ? preset
        : (
            await vscode.window.showQuickPick(
              [
                ...(mine ? [{ label: '$(discard) Back to the tool’s category', description: `now: ${category(mine.category).title}`, id: CLEAR }] : []),
                ...CATEGORIES.filter(x => x.id !== 'unclassified').map(x => ({
                  label: x.title,
                  description: `${x.id}${c?.category === x.id ? ' · current' : ''}`,
                  detail: x.description,
                  id: x.id,
                })),
              ],
              {
                title: `Category of ${node.entry.commit.slice(0, 8)} ${node.role}`,
                placeHolder: c ? `The tool says “${category(c.category).title}” (${c.strength})` : 'What failed?',
                matchOnDescription: true,
              },
            )
          )?.id;
    if (!chosen) return;
    const dir = vscode.Uri.joinPath(node.folder.root, '.bench-triage');
    const file = vscode.Uri.joinPath(dir, 'labels.json');
    const label: Label = {
      run: run.id,
      commit: node.entry.commit,
      agent: node.role === 'agent' ? node.entry.agent : null,
      role: node.role,
      category: chosen,
      was: mine?.was ?? c?.category ?? null,
      lines: labelLines(c ?? undefined).map(x => ({ file: x.file, line: x.line, text: x.text })),
      at: new Date().toISOString(),
    };
    const text = chosen === CLEAR ? withoutLabel(loaded.labels, run.id) : withLabel(loaded.labels, label);
    await vscode.workspace.fs.createDirectory(dir);
    // Atomic: a crash mid-write leaves the previous file, never half of one.
    const tmp = vscode.Uri.joinPath(dir, `labels.json.${process.pid}.tmp`);
    await vscode.workspace.fs.writeFile(tmp, new TextEncoder().encode(text));
    await vscode.workspace.fs.rename(tmp, file, { overwrite: true });
    await store.resettle();
    const what = `${node.entry.commit.slice(0, 8)} ${node.role}`;
    if (chosen === CLEAR) {
      void vscode.window.showInformationMessage(`Bench Triage: ${what} is back to the tool’s category.`);
      return { cleared: run.id };
    }
    const draft = 'Create Rule from Evidence…';
    void vscode.window
      .showInformationMessage(
        `Bench Triage: ${what} is “${category(chosen).title}” (set by you, in .bench-triage/labels.json); runs no rule explains are asked again with it.`,
        ...(label.lines.length ? [draft] : []),
      )
      .then(b => {
        if (b === draft) void vscode.commands.executeCommand(COMMANDS.createRuleFromSelection, { label: { text: label.lines.at(-1)!.text, category: chosen } });
      });
    return label;
  });
}
