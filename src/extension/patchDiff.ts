import * as vscode from 'vscode';
import { applyFilePatch, MAX_PATCH_BYTES, pairFilePatches, splitPatch, type FilePatch } from '../core/patch';
import { parseJson } from '../core/ingest';
import type { Commit } from '../core/model';
import type { FolderScan, Store } from './store';
import { diffUri } from './uris';
import { vllmCheckoutSetting } from './settings';
import { checkoutHas, commitDiff, fileAt } from '../app/checkout';

/** In-memory documents for the two sides of a diff (read-only). */
export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly docs = new Map<string, string>();
  put(uri: vscode.Uri, text: string): vscode.Uri {
    this.docs.set(uri.toString(), text);
    return uri;
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? '';
  }
}

export interface DiffResult {
  /** files: whole files on the parent; patch-files: the two patches file by file (no parent to apply them to). */
  mode: 'files' | 'patch-files';
  files: string[];
}

async function humanPatchOf(folder: FolderScan, commit: Commit, checkout: string | null): Promise<string | null> {
  if (commit.humanPatch) {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.root, commit.humanPatch.source)));
    const line = text.split('\n')[commit.humanPatch.line - 1] ?? '';
    const p = parseJson(line);
    if (p.ok && p.value && typeof (p.value as { diff_text?: unknown }).diff_text === 'string') return (p.value as { diff_text: string }).diff_text;
  }
  if (checkout && commit.parent && (await checkoutHas(checkout, commit.hash))) return commitDiff(checkout, commit.parent, commit.hash);
  return null;
}

/**
 * Agent vs human. With a vLLM checkout: every touched file after applying each patch to the
 * parent (base from `git show <parent>:<path>`), as one multi-file diff. Without: the two patches.
 */
export async function diffAgentVsHuman(store: Store, docs: DiffDocuments, commitHash: string, agent: string | null): Promise<DiffResult | undefined> {
  const found = store.scans.map(folder => ({ folder, commit: folder.result.commits.find(c => c.hash === commitHash) })).find(x => x.commit);
  if (!found?.commit) {
    void vscode.window.showErrorMessage(`Bench Triage: commit ${commitHash.slice(0, 12)} is not in the workspace.`);
    return;
  }
  const { folder, commit } = found;
  const checkout = vllmCheckoutSetting(found?.folder.root);
  const runs = folder.result.agentRuns.filter(r => r.commit === commit.hash && r.patch && !r.patch.empty);
  const run = runs.find(r => r.agent === agent) ?? runs[0];
  if (!run?.patch) {
    void vscode.window.showErrorMessage(`Bench Triage: no agent patch (model_patch.diff) for ${commit.hash.slice(0, 12)}.`);
    return;
  }
  if (run.patch.bytes > MAX_PATCH_BYTES) {
    void vscode.window.showErrorMessage(`Bench Triage: the agent patch ${run.patch.path} is ${(run.patch.bytes / 1048576).toFixed(0)} MB: too large to diff.`);
    return;
  }
  const agentPatch = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.root, run.patch.path)));
  let humanPatch: string | null;
  try {
    humanPatch = await humanPatchOf(folder, commit, checkout);
  } catch (e) {
    void vscode.window.showErrorMessage(`Bench Triage: could not read the human patch from ${checkout}: ${e instanceof Error ? e.message : e}`);
    return;
  }
  if (humanPatch === null) {
    void vscode.window.showErrorMessage(
      `Bench Triage: no human patch for ${commit.hash.slice(0, 12)}: the dataset has no diff_text and no vLLM checkout is configured (benchTriage.vllmCheckout).`,
    );
    return;
  }
  const short = commit.hash.slice(0, 8);
  const uri = (side: 'human' | 'agent', p: string) => diffUri(short, side, p);

  // Whole files need the parent in the checkout; without it (not fetched, or data from elsewhere) the two patches are compared.
  const parentKnown = !!checkout && !!commit.parent && (await checkoutHas(checkout, commit.parent));
  if (checkout && commit.parent && !parentKnown)
    void vscode.window.showInformationMessage(
      `Bench Triage: the parent ${commit.parent.slice(0, 12)} is not in the vLLM checkout ${checkout}: comparing the two patches (fetch it for whole files).`,
    );
  let human: Map<string, FilePatch>, agentFiles: Map<string, FilePatch>;
  try {
    human = new Map(splitPatch(humanPatch).map(f => [f.path, f]));
  } catch (e) {
    void vscode.window.showErrorMessage(`Bench Triage: the human patch of ${short} cannot be read: ${(e as Error).message}`);
    return;
  }
  try {
    agentFiles = new Map(splitPatch(agentPatch).map(f => [f.path, f]));
  } catch (e) {
    void vscode.window.showErrorMessage(`Bench Triage: the agent patch ${run.patch.path} cannot be read: ${(e as Error).message}`);
    return;
  }
  if (!checkout || !commit.parent || !parentKnown) {
    // Without the parent: each file's hunks beside the other patch's, as a multi-file diff editor
    // lists them; files only one patch touches come after, named so.
    const pairs = pairFilePatches([...human.values()], [...agentFiles.values()]);
    const agentName = run.agent ?? 'agent';
    const resources: Array<[vscode.Uri, vscode.Uri, vscode.Uri]> = [];
    const labels: string[] = [];
    const add = (label: string, p: { human: string | null; agent: string | null }) => {
      labels.push(label);
      resources.push([
        diffUri(short, 'human', label),
        docs.put(uri('human', label), p.human ?? '(the human patch leaves this file alone)\n'),
        docs.put(uri('agent', label), p.agent ?? `(the ${agentName} patch leaves this file alone)\n`),
      ]);
    };
    for (const p of pairs.both) add(p.path, p);
    for (const p of pairs.humanOnly) add(`only in human patch/${p.path}`, p);
    for (const p of pairs.agentOnly) add(`only in agent patch/${p.path}`, p);
    await vscode.commands.executeCommand(
      'vscode.changes',
      `${short}: human ↔ ${agentName} patch, file by file (${pairs.both.length} both touch, ${pairs.humanOnly.length} human only, ${pairs.agentOnly.length} agent only; set benchTriage.vllmCheckout for whole files)`,
      resources,
    );
    return { mode: 'patch-files', files: labels };
  }
  const paths = [...new Set([...human.keys(), ...agentFiles.keys()])].sort();
  const resources: Array<[vscode.Uri, vscode.Uri, vscode.Uri]> = [];
  for (const p of paths) {
    let base = '';
    try {
      base = await fileAt(checkout, commit.parent!, p);
    } catch {
      /* new file */
    }
    const side = (fp: FilePatch | undefined) => {
      if (!fp) return base;
      const r = applyFilePatch(base, fp);
      return r.ok ? r.text : `⚠ ${r.error}\n`;
    };
    resources.push([
      vscode.Uri.joinPath(vscode.Uri.file(checkout), p),
      docs.put(uri('human', p), side(human.get(p))),
      docs.put(uri('agent', p), side(agentFiles.get(p))),
    ]);
  }
  await vscode.commands.executeCommand('vscode.changes', `${short}: human ↔ agent (${run.agent ?? 'agent'}) on ${commit.parent.slice(0, 8)}`, resources);
  return { mode: 'files', files: paths };
}
