import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, locate } from './support/api';

describe("Annotate keeps the user's notes", () => {
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = () => path.join(root(), '.bench-triage', 'notes.json');
  let before: string | null = null;
  let dirWasThere = false;
  beforeEach(() => {
    dirWasThere = existsSync(path.dirname(file()));
    before = existsSync(file()) ? readFileSync(file(), 'utf8') : null;
    mkdirSync(path.dirname(file()), { recursive: true });
  });
  afterEach(() => {
    if (before === null) rmSync(file(), { force: true });
    else writeFileSync(file(), before);
    if (!dirWasThere) rmSync(path.dirname(file()), { recursive: true, force: true });
  });

  it('a notes.json that cannot be read is never overwritten: the error names the file and the place', async () => {
    const { commitsTree, store } = await api();
    await store.ensureScanned();
    const entry = (await locate(commitsTree, store.entries()[0].entry.commit))!.entry;
    const broken = '{ "1a2b3c4d": { "note": "my long analysis", "updatedAt": "x" },\n  oops }\n';
    writeFileSync(file(), broken);
    const shown: string[] = [];
    const orig = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (m: string) => {
      shown.push(m);
      return Promise.resolve(undefined);
    };
    try {
      const r = await vscode.commands.executeCommand('benchTriage.annotate', entry, 'new note');
      assert.equal(r, undefined);
    } finally {
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = orig;
    }
    assert.equal(readFileSync(file(), 'utf8'), broken, "the user's file was rewritten");
    assert.match(shown.join('\n'), /\.bench-triage\/notes\.json is not valid JSON \(.*line 2.*\): fix or move it first; nothing was written/);
  });

  it('a valid notes.json gets the note, written atomically (no temporary file left)', async () => {
    const { commitsTree, store } = await api();
    await store.ensureScanned();
    const entry = (await locate(commitsTree, store.entries()[0].entry.commit))!.entry;
    writeFileSync(file(), JSON.stringify({ other: { note: 'keep me', updatedAt: 'x' } }));
    await vscode.commands.executeCommand('benchTriage.annotate', entry, 'from the test');
    const notes = JSON.parse(readFileSync(file(), 'utf8'));
    assert.equal(notes.other.note, 'keep me');
    assert.equal(notes[entry.entry.commit].note, 'from the test');
    assert.deepEqual(
      readdirSync(path.dirname(file())).filter(f => f.endsWith('.tmp')),
      [],
    );
  });
});
