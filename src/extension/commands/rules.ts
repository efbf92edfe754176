import * as vscode from 'vscode';
import { applyEdits, modify, parse, type ParseError, printParseErrorCode } from 'jsonc-parser';
import { CATEGORIES, draftRule, literalOf } from '../../core/classify';
import { fromEmbeddedLogUri, fromLiveLogUri, fromRunTranscriptUri } from '../uris';
import { register } from './args';
import { COMMANDS } from './ids';
import { readLabels } from './labels';

type Scope = 'any' | 'error' | 'output';
const SCOPES: Array<{ scope: Scope; label: string; detail: string }> = [
  { scope: 'any', label: 'Anywhere', detail: 'the pipeline’s error text, the kept output and the log files' },
  { scope: 'output', label: 'Logs only', detail: 'the kept output and the log files' },
  { scope: 'error', label: 'Error text only', detail: 'the error field a result file states' },
];

/** The file a log document shows (a result file for an embedded log, the run folder for a transcript). */
function sourceOf(uri: vscode.Uri): vscode.Uri {
  const transcript = fromRunTranscriptUri(uri);
  return fromEmbeddedLogUri(uri)?.file ?? fromLiveLogUri(uri) ?? (transcript ? vscode.Uri.file(transcript) : uri);
}

async function folderFor(uri: vscode.Uri): Promise<vscode.WorkspaceFolder | undefined> {
  const own = vscode.workspace.getWorkspaceFolder(sourceOf(uri));
  if (own) return own;
  const all = vscode.workspace.workspaceFolders ?? [];
  if (all.length <= 1) return all[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which folder’s .bench-triage/rules.json gets the rule?' });
}

const fmt = { tabSize: 2, insertSpaces: true, eol: '\n' };

/** The evidence lines of every labelled run in the open folders (newest label first). */
async function labelledLines(): Promise<Array<vscode.QuickPickItem & { text: string; category: string }>> {
  const out: Array<vscode.QuickPickItem & { text: string; category: string }> = [];
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    const r = await readLabels(f.uri);
    if ('error' in r) continue;
    for (const l of [...r.labels].reverse())
      for (const line of [...l.lines].reverse())
        out.push({
          label: line.text.slice(0, 120),
          description: `${l.category} · ${l.commit.slice(0, 8)} ${l.role}`,
          detail: `${line.file}:${line.line}`,
          text: line.text,
          category: l.category,
        });
  }
  return out.slice(0, 200);
}

/** Options a caller may pass instead of answering the pickers (tests, other commands). */
interface Preset {
  category?: string;
  scope?: Scope;
}
function presetOf(v: unknown): Preset {
  if (!v || typeof v !== 'object') return {};
  const o = v as Record<string, unknown>;
  return {
    category: typeof o.category === 'string' && CATEGORIES.some(c => c.id === o.category) ? o.category : undefined,
    scope: SCOPES.some(s => s.scope === o.scope) ? (o.scope as Scope) : undefined,
  };
}

/**
 * *Create Rule from Selection*: a selected log line becomes a rule in the folder's
 * `.bench-triage/rules.json`, added to the open document (unsaved) and selected, so the person
 * reviews it; saving validates it and re-classifies the workspace. The file's other content and
 * formatting are kept (a JSON edit, not a rewrite); a file that is not valid JSON is left alone.
 */
export function registerRuleCommands(context: vscode.ExtensionContext): void {
  register(context, COMMANDS.createRuleFromSelection, async (arg?: unknown, preset?: unknown) => {
    const editor = vscode.window.activeTextEditor;
    // From a lens: `{ uri, line }` selects that line of the log first.
    const lens = arg && typeof arg === 'object' ? (arg as { uri?: unknown; line?: unknown }) : {};
    if (editor && typeof lens.line === 'number' && lens.uri === editor.document.uri.toString() && lens.line >= 1 && lens.line <= editor.document.lineCount)
      editor.selection = new vscode.Selection(lens.line - 1, 0, lens.line - 1, editor.document.lineAt(lens.line - 1).text.length);
    // From a label (Set Category…'s notification, or picked below): its evidence line and category.
    const fromLabel =
      lens && typeof (lens as { label?: unknown }).label === 'object' ? ((lens as { label: { text?: unknown; category?: unknown } }).label ?? {}) : null;
    let selected = typeof fromLabel?.text === 'string' ? fromLabel.text : editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
    let labelled = typeof fromLabel?.category === 'string' ? fromLabel.category : undefined;
    // Nothing selected: the evidence of the runs people labelled is offered as the draft.
    if (!literalOf(selected)) {
      const offers = await labelledLines();
      const pick = offers.length
        ? await vscode.window.showQuickPick(offers, {
            title: 'Create a rule from a labelled run’s evidence',
            placeHolder: 'No log line is selected: pick a line of a run whose category was set by hand',
            matchOnDetail: true,
          })
        : undefined;
      if (pick) {
        selected = pick.text;
        labelled = pick.category;
      }
    }
    const literal = literalOf(selected);
    if (!literal) {
      void vscode.window.showInformationMessage('Bench Triage: select the line of a log that states the failure, then run Create Rule from Selection.');
      return;
    }
    const p = { ...presetOf(preset), ...(labelled && CATEGORIES.some(c => c.id === labelled) && !presetOf(preset).category ? { category: labelled } : {}) };
    const cat =
      p.category ??
      (
        await vscode.window.showQuickPick(
          CATEGORIES.filter(c => c.id !== 'unclassified').map(c => ({ label: c.title, description: c.id, detail: c.description, id: c.id })),
          { title: `Category for “${literal.slice(0, 60)}”`, placeHolder: 'What does this line mean?', matchOnDescription: true },
        )
      )?.id;
    if (!cat) return;
    const scope =
      p.scope ?? (await vscode.window.showQuickPick(SCOPES, { title: 'Where should the rule look?', placeHolder: 'Scope of the indication' }))?.scope;
    if (!scope) return;
    const folder = editor ? await folderFor(editor.document.uri) : vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void vscode.window.showErrorMessage('Bench Triage: open a folder first; rules live in <folder>/.bench-triage/rules.json.');
      return;
    }
    const file = vscode.Uri.joinPath(folder.uri, '.bench-triage', 'rules.json');
    try {
      await vscode.workspace.fs.stat(file);
    } catch {
      await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.bench-triage'));
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('{\n  "rules": []\n}\n'));
    }
    const doc = await vscode.workspace.openTextDocument(file);
    const text = doc.getText();
    const errors: ParseError[] = [];
    const json = parse(text, errors, { allowTrailingComma: true }) as { rules?: unknown } | undefined;
    if (errors.length || !json || typeof json !== 'object' || Array.isArray(json) || (json.rules !== undefined && !Array.isArray(json.rules))) {
      await vscode.window.showTextDocument(doc);
      const why = errors.length ? `${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}` : '"rules" is not a list';
      void vscode.window.showErrorMessage(
        `Bench Triage: ${vscode.workspace.asRelativePath(file)} is not a valid rules file (${why}); fix it, then create the rule again. Nothing was changed.`,
      );
      return;
    }
    const ids = (Array.isArray(json.rules) ? json.rules : []).flatMap(r =>
      r && typeof r === 'object' && typeof (r as { id?: unknown }).id === 'string' ? [(r as { id: string }).id] : [],
    );
    const rule = draftRule(selected, cat, scope, ids);
    const edits = modify(text, ['rules', -1], rule, { formattingOptions: fmt });
    const next = applyEdits(text, edits);
    const we = new vscode.WorkspaceEdit();
    we.replace(file, new vscode.Range(doc.positionAt(0), doc.positionAt(text.length)), next);
    if (!(await vscode.workspace.applyEdit(we))) {
      void vscode.window.showErrorMessage(`Bench Triage: could not edit ${vscode.workspace.asRelativePath(file)}.`);
      return;
    }
    const shown = await vscode.window.showTextDocument(doc);
    // Select the new rule's pattern: the part a person most likely wants to adjust.
    const at = next.lastIndexOf(`"${rule.id}"`);
    const pat = next.indexOf('"pattern"', at);
    if (at >= 0 && pat >= 0) {
      const start = next.indexOf('"', pat + '"pattern"'.length) + 1;
      const end = next.indexOf('\n', start);
      shown.selection = new vscode.Selection(doc.positionAt(start), doc.positionAt(end > 0 ? end - 1 : start));
      shown.revealRange(new vscode.Range(doc.positionAt(at), doc.positionAt(end)), vscode.TextEditorRevealType.InCenter);
    }
    void vscode.window.showInformationMessage(
      `Bench Triage: rule ${rule.id} added to ${vscode.workspace.asRelativePath(file)}; save the file to re-classify with it.`,
    );
    return rule;
  });
}
