import * as vscode from 'vscode';
import { parseJson } from '../../core/ingest/json';
import type { Store } from '../store';
import { pickCommitFirst, register, stringArg, targetOf } from './args';
import { COMMANDS } from './ids';

type Notes = Record<string, { note: string; updatedAt: string }>;

/** `.bench-triage/notes.json`: its notes, or why it cannot be used (naming the file and the place). */
export async function readNotes(file: vscode.Uri): Promise<{ notes: Notes } | { error: string }> {
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(file);
  } catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') return { notes: {} };
    return { error: `cannot read ${vscode.workspace.asRelativePath(file)} (${e instanceof Error ? e.message : String(e)})` };
  }
  const p = parseJson(new TextDecoder().decode(bytes));
  if (!p.ok) return { error: `${vscode.workspace.asRelativePath(file)} is not valid JSON (${p.message}): fix or move it first` };
  if (!p.value || typeof p.value !== 'object' || Array.isArray(p.value))
    return { error: `${vscode.workspace.asRelativePath(file)} is not an object of notes by commit` };
  return { notes: p.value as Notes };
}

/** Notes on commits (kept in the folder) and copying a commit's perf command. */
export function registerNoteCommands(context: vscode.ExtensionContext, store: Store): void {
  register(context, COMMANDS.copyPerfCommand, async (arg?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t) {
      pickCommitFirst();
      return;
    }
    const cmd = t.folder.result.commits.find(c => c.hash === t.commit)?.perfCommands[0]?.command;
    if (!cmd) {
      void vscode.window.showInformationMessage(`Bench Triage: no perf command known for ${t.commit.slice(0, 8)}.`);
      return;
    }
    await vscode.env.clipboard.writeText(cmd);
    void vscode.window.showInformationMessage(`Bench Triage: copied ${cmd.length > 60 ? cmd.slice(0, 60) + '…' : cmd}`);
    return cmd;
  });
  register(context, COMMANDS.annotate, async (arg?: unknown, text?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t) {
      pickCommitFirst();
      return;
    }
    const dir = vscode.Uri.joinPath(t.folder.root, '.bench-triage');
    const file = vscode.Uri.joinPath(dir, 'notes.json');
    // The user's notes are never overwritten by a read that failed: only a missing file starts empty.
    const loaded = await readNotes(file);
    if ('error' in loaded) {
      void vscode.window.showErrorMessage(`Bench Triage: ${loaded.error}; nothing was written, your notes are as they were.`);
      return;
    }
    const notes = loaded.notes;
    const note =
      stringArg(text) ??
      (await vscode.window.showInputBox({
        title: `Note for ${t.commit.slice(0, 8)}`,
        value: notes[t.commit]?.note ?? '',
        prompt: 'Kept in .bench-triage/notes.json (empty removes it)',
      }));
    if (note === undefined) return;
    if (note) notes[t.commit] = { note: note.slice(0, 10000), updatedAt: new Date().toISOString() };
    else delete notes[t.commit];
    await vscode.workspace.fs.createDirectory(dir);
    // Atomic: a crash mid-write leaves the previous file, never half of one.
    const tmp = vscode.Uri.joinPath(dir, `notes.json.${process.pid}.tmp`);
    await vscode.workspace.fs.writeFile(tmp, new TextEncoder().encode(JSON.stringify(notes, null, 2) + '\n'));
    await vscode.workspace.fs.rename(tmp, file, { overwrite: true });
    return notes[t.commit];
  });
}
