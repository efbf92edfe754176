import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ROLES, type Role } from '../core/model';
import { planRepeats } from '../core/compare/repeats';
import { parseJson } from '../core/ingest/json';
import { planRun, PlanError } from '../runner/plan';
import { proposeRecipes, RECIPES } from '../runner/recipes';
import type { Node } from './commitsTree';
import { configuredHosts, imageTemplates } from './hostsConfig';
import { embeddedLogUri } from './logFs';
import { liveLogUri } from './liveLogFs';
import { goToFirstErrorInFile, openLarge } from './largeLog';
import { HF_TOKEN_KEY, secretKey, TrustError, type RunService } from './runService';
import type { RunNode } from './runsTree';
import type { FolderScan, Store } from './store';

/** Logs above this open directly (no preview, highlighting off in VS Code) with a notice: never cut. */
export const LARGE_LOG_BYTES = 50 * 1024 * 1024;

type Target = { scan: FolderScan; commit: string; roles: Role[]; cause: string | null };

function targetOf(store: Store, arg: Node | string | undefined, role?: Role): Target | null {
  if (typeof arg === 'string') {
    const scan = store.scans.find(s => s.result.commits.some(c => c.hash === arg));
    return scan ? { scan, commit: arg, roles: role ? [role] : [...ROLES], cause: null } : null;
  }
  if (arg?.kind === 'entry') return { scan: arg.folder, commit: arg.entry.commit, roles: [...ROLES], cause: ROLES.map(r => arg.entry.roles[r].classification?.cause).find(Boolean) ?? null };
  if (arg?.kind === 'role') return { scan: arg.folder, commit: arg.entry.commit, roles: [arg.role], cause: arg.view.classification?.cause ?? null };
  return null;
}

async function pickHost(scope: vscode.Uri) {
  const hosts = configuredHosts(scope);
  if (hosts.length === 1) return hosts[0];
  const pick = await vscode.window.showQuickPick(hosts.map(h => ({ label: h.label, description: `${h.docker || 'DOCKER_HOST'} · ${h.gpus} GPU${h.gpus === 1 ? '' : 's'}`, host: h })), { title: 'Run on which host?' });
  return pick?.host;
}

function report(e: unknown): void {
  if (e instanceof TrustError) { void vscode.window.showWarningMessage(e.message, 'Manage Workspace Trust').then(a => a && vscode.commands.executeCommand('workbench.trust.manage')); return; }
  void vscode.window.showErrorMessage(e instanceof PlanError ? `Bench Triage: ${e.message}` : `Bench Triage: ${e instanceof Error ? e.message : String(e)}`);
}

export async function openLogFile(uri: vscode.Uri): Promise<vscode.TextEditor | undefined> {
  const size = (await fs.stat(uri.fsPath).catch(() => null))?.size ?? 0;
  if (size > LARGE_LOG_BYTES) {
    // VS Code does not give extensions documents above 50 MB: open the file itself, in full.
    await openLarge(uri);
    void vscode.window.showInformationMessage(`Bench Triage: ${path.basename(uri.fsPath)} is ${(size / 1024 ** 2).toFixed(0)} MB — opened in full (nothing cut); VS Code turns highlighting and folding off for files this large.`, 'Go to First Error')
      .then(a => a && goToFirstErrorInFile(uri));
    return undefined;
  }
  // Run logs below the large tier open through the live, read-only provider (tails while the run writes).
  const live = uri.scheme === 'file' && size <= LARGE_LOG_BYTES && /\/\.bench-triage\/runs\//.test(uri.path);
  const doc = await vscode.workspace.openTextDocument(live ? liveLogUri(uri) : uri);
  if (doc.languageId !== 'vllm-log' && size <= LARGE_LOG_BYTES) await vscode.languages.setTextDocumentLanguage(doc, 'vllm-log');
  return vscode.window.showTextDocument(doc, { preview: false });
}

type Notes = Record<string, { note: string; updatedAt: string }>;

/** `.bench-triage/notes.json`: its notes, or why it cannot be used (naming the file and the place). */
export async function readNotes(file: vscode.Uri): Promise<{ notes: Notes } | { error: string }> {
  let bytes: Uint8Array;
  try { bytes = await vscode.workspace.fs.readFile(file); }
  catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') return { notes: {} };
    return { error: `cannot read ${vscode.workspace.asRelativePath(file)} (${e instanceof Error ? e.message : String(e)})` };
  }
  const p = parseJson(new TextDecoder().decode(bytes));
  if (!p.ok) return { error: `${vscode.workspace.asRelativePath(file)} is not valid JSON (${p.message}): fix or move it first` };
  if (!p.value || typeof p.value !== 'object' || Array.isArray(p.value)) return { error: `${vscode.workspace.asRelativePath(file)} is not an object of notes by commit` };
  return { notes: p.value as Notes };
}

export function registerRunCommands(context: vscode.ExtensionContext, store: Store, runs: RunService, focusRuns: () => void): void {
  const start = async (t: Target | null, recipes: string[] = []) => {
    if (!t) { void vscode.window.showInformationMessage('Bench Triage: pick a commit or a role in the Commits view.'); return; }
    try {
      const host = await pickHost(t.scan.root);
      if (!host) return;
      const started = runs.start(t.scan, t.commit, t.roles, { host, recipes });
      focusRuns();
      const records = await started;
      const bad = records.filter(r => r.status !== 'succeeded');
      if (bad.length) void vscode.window.showWarningMessage(`Bench Triage: ${bad.map(r => `${r.role} ${r.status}${r.error ? ` — ${r.error}` : ''}`).join('; ')}`);
      else void vscode.window.showInformationMessage(`Bench Triage: ${records.map(r => r.role).join(', ')} of ${t.commit.slice(0, 8)} succeeded on ${host.label}.`);
      await store.rescan();
      return records;
    } catch (e) { report(e); return undefined; }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('benchTriage.rerun', async (arg?: Node | string, role?: Role) => { await store.ensureScanned(); return start(targetOf(store, arg, role)); }),
    vscode.commands.registerCommand('benchTriage.rerunWithFix', async (arg?: Node | string, recipeIds?: string[]) => {
      await store.ensureScanned();
      const t = targetOf(store, arg);
      if (!t) return start(null);
      let ids = recipeIds;
      if (!ids) {
        const proposed = new Set(proposeRecipes(t.cause).map(r => r.id));
        const picks = await vscode.window.showQuickPick(RECIPES.map(r => ({ label: r.id, description: r.title, detail: proposed.has(r.id) ? `proposed for ${t.cause}` : undefined, picked: proposed.has(r.id) })),
          { canPickMany: true, title: `Rerun ${t.roles.join(', ')} of ${t.commit.slice(0, 8)} with fixes` });
        if (!picks?.length) return;
        ids = picks.map(p => p.label);
      }
      return start(t, ids);
    }),
    vscode.commands.registerCommand('benchTriage.runMore', async (commit?: string, agent?: string | null, n?: number) => {
      await store.ensureScanned();
      const t = typeof commit === 'string' ? targetOf(store, commit) : null;
      if (!t || !Number.isInteger(n) || n! < 1) { void vscode.window.showInformationMessage('Bench Triage: Run N more needs a commit and a number of attempts (from the Compare view).'); return; }
      const plan = planRepeats(n!);
      const order = plan.map(p => p.role[0].toUpperCase()).join(' ');
      const go = await vscode.window.showInformationMessage(`Run ${n} more attempt${n === 1 ? '' : 's'} of each role of ${t.commit.slice(0, 8)}${agent ? ` (agent ${agent})` : ''}?`,
        { modal: true, detail: `${plan.length} runs, one after another, interleaved so that drift of the host hits every role alike: ${order}. Each run can be cancelled from the Runs view.` }, 'Run');
      if (go !== 'Run') return;
      const host = await pickHost(t.scan.root);
      if (!host) return;
      return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Bench Triage: ${plan.length} runs of ${t.commit.slice(0, 8)}`, cancellable: true }, async (progress, token) => {
        const done = [];
        for (const [i, p] of plan.entries()) {
          if (token.isCancellationRequested) break;
          progress.report({ message: `${i + 1}/${plan.length}: ${p.role} (round ${p.round})`, increment: 100 / plan.length });
          try { done.push(...await runs.start(t.scan, t.commit, [p.role], { host, recipes: [] })); }
          catch (e) { report(e); break; }
        }
        await store.rescan();
        return done;
      });
    }),
    vscode.commands.registerCommand('benchTriage.runCommit', async (commit: string, roles: Role[] | 'all') => {
      await store.ensureScanned();
      const t = targetOf(store, commit);
      return start(t && { ...t, roles: roles === 'all' ? [...ROLES] : roles });
    }),
    vscode.commands.registerCommand('benchTriage.explainPlan', async (commit: string) => {
      await store.ensureScanned();
      const t = targetOf(store, commit);
      if (!t) { void vscode.window.showErrorMessage(`Bench Triage: commit ${commit.slice(0, 12)} is not in the workspace's results.`); return; }
      const c = t.scan.result.commits.find(x => x.hash === commit)!;
      const host = configuredHosts(t.scan.root)[0];
      const agentPatch = t.scan.result.agentRuns.find(r => r.commit === commit && r.patch && !r.patch.empty)?.patch?.path ?? null;
      const lines = [`# What a run of ${commit.slice(0, 12)} will do`, '', `Perf command: \`${c.perfCommands[0]?.command ?? '(none)'}\``, `Host: ${host.label} (${host.docker || 'DOCKER_HOST'}, ${host.gpus} GPUs)`, ''];
      for (const role of ROLES) {
        try {
          const p = planRun(c, role, { host, agentPatch, runId: '<run id>', templates: imageTemplates(t.scan.root) });
          lines.push(`## ${role}`, '', `- image \`${p.image}\`${p.agentPatch ? ` + agent patch \`${p.agentPatch}\`` : ''}`);
          if (p.server) lines.push(`- server \`${p.server.argv.join(' ')}\``, `- readiness GET ${p.server.readiness.url} (≤ ${p.server.readiness.timeoutS} s)`);
          lines.push(`- benchmark \`${p.benchmark.argv.join(' ')}\``, `- scripts from ${p.benchmark.scriptSource}`, `- metrics from ${p.metrics}`, `- results in \`${p.resultDir}\``, '');
        } catch (e) { lines.push(`## ${role}`, '', `Refused: ${(e as Error).message}`, ''); }
      }
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: lines.join('\n') });
      return vscode.window.showTextDocument(doc, { preview: true });
    }),
    vscode.commands.registerCommand('benchTriage.cancelRun', (node?: RunNode) => {
      if (node?.kind !== 'run') return;
      if (runs.cancel(node.run.key)) void vscode.window.showInformationMessage(`Bench Triage: cancelling ${node.run.record.role} of ${node.run.record.commit.slice(0, 8)} (its container is removed; logs so far are kept).`);
    }),
    vscode.commands.registerCommand('benchTriage.openRunLog', async (node?: RunNode) => {
      if (node?.kind !== 'run') return;
      const r = node.run.record;
      const phase = r.phases.filter(p => p.launchedAt).at(-1);
      return openLogFile(vscode.Uri.file(path.join(node.run.folder.fsPath, r.plan.resultDir, phase ? phase.stdout : r.runnerLog)));
    }),
    vscode.commands.registerCommand('benchTriage.openLogFile', (uri: vscode.Uri) => openLogFile(uri)),
    vscode.commands.registerCommand('benchTriage.goToFirstErrorInFile', (uri?: vscode.Uri) => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      const target = uri ?? (input instanceof vscode.TabInputText ? input.uri : undefined);
      return target ? goToFirstErrorInFile(target) : undefined;
    }),
    vscode.commands.registerCommand('benchTriage.openLog', async (node?: Node) => {
      if (node?.kind !== 'role' || !node.view.run) return;
      const run = node.view.run;
      const own = run.logFiles.find(f => /benchmark\.stdout\.log$/.test(f)) ?? run.logFiles.find(f => /\.stderr\.log$/.test(f)) ?? run.logFiles[0];
      if (own) return openLogFile(vscode.Uri.joinPath(node.folder.root, own));
      const log = run.logs[0];
      if (!log) { void vscode.window.showInformationMessage(`Bench Triage: the ${node.role} result of ${node.entry.commit.slice(0, 8)} has no log.`); return; }
      if (log.truncation) void vscode.window.showWarningMessage(`Bench Triage: this log was already cut by the pipeline that wrote it: only the ${log.truncation.kind === 'tail' ? 'last' : 'first'} ${log.truncation.cap.toLocaleString()} characters were kept (field ${log.field}). Rerun to get the complete log.`);
      const doc = await vscode.workspace.openTextDocument(embeddedLogUri(vscode.Uri.joinPath(node.folder.root, run.provenance.file), log.field));
      return vscode.window.showTextDocument(doc, { preview: false });
    }),
    vscode.commands.registerCommand('benchTriage.openResult', async (node?: Node) => {
      if (node?.kind !== 'role' || !node.view.run) return;
      return vscode.window.showTextDocument(vscode.Uri.joinPath(node.folder.root, node.view.run.provenance.file));
    }),
    vscode.commands.registerCommand('benchTriage.copyPerfCommand', async (node?: Node) => {
      const t = targetOf(store, node);
      const cmd = t && t.scan.result.commits.find(c => c.hash === t.commit)?.perfCommands[0]?.command;
      if (!cmd) { void vscode.window.showInformationMessage('Bench Triage: no perf command known for this commit.'); return; }
      await vscode.env.clipboard.writeText(cmd);
      void vscode.window.showInformationMessage(`Bench Triage: copied ${cmd.length > 60 ? cmd.slice(0, 60) + '…' : cmd}`);
    }),
    vscode.commands.registerCommand('benchTriage.annotate', async (node?: Node, text?: string) => {
      const t = targetOf(store, node);
      if (!t) return;
      const file = vscode.Uri.joinPath(t.scan.root, '.bench-triage', 'notes.json');
      // The user's notes are never overwritten by a read that failed: only a missing file starts empty.
      const loaded = await readNotes(file);
      if ('error' in loaded) { void vscode.window.showErrorMessage(`Bench Triage: ${loaded.error}; nothing was written, your notes are as they were.`); return; }
      const notes = loaded.notes;
      const note = text ?? await vscode.window.showInputBox({ title: `Note for ${t.commit.slice(0, 8)}`, value: notes[t.commit]?.note ?? '', prompt: 'Kept in .bench-triage/notes.json (empty removes it)' });
      if (note === undefined) return;
      if (note) notes[t.commit] = { note, updatedAt: new Date().toISOString() }; else delete notes[t.commit];
      await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(t.scan.root, '.bench-triage'));
      // Atomic: a crash mid-write leaves the previous file, never half of one.
      const tmp = vscode.Uri.joinPath(t.scan.root, '.bench-triage', `notes.json.${process.pid}.tmp`);
      await vscode.workspace.fs.writeFile(tmp, new TextEncoder().encode(JSON.stringify(notes, null, 2) + '\n'));
      await vscode.workspace.fs.rename(tmp, file, { overwrite: true });
      return notes[t.commit];
    }),
    vscode.commands.registerCommand('benchTriage.setHuggingFaceToken', async (value?: string) => {
      const token = value ?? await vscode.window.showInputBox({ title: 'Hugging Face token', prompt: 'Stored in VS Code SecretStorage, passed to runs as HF_TOKEN and masked in every stored log', password: true, ignoreFocusOut: true });
      if (!token) return;
      await context.secrets.store(HF_TOKEN_KEY, token.trim());
      void vscode.window.showInformationMessage('Bench Triage: Hugging Face token saved in SecretStorage.');
    }),
    vscode.commands.registerCommand('benchTriage.clearHuggingFaceToken', async () => { await context.secrets.delete(HF_TOKEN_KEY); }),
    vscode.commands.registerCommand('benchTriage.setRunSecret', async (nameArg?: string, valueArg?: string) => {
      const name = typeof nameArg === 'string' ? nameArg : await vscode.window.showInputBox({ title: 'Run secret: name', prompt: 'The environment variable runs get (declare it in benchTriage.runEnv as { "name": …, "secret": true })',
        validateInput: v => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? null : 'letters, digits and _ (not starting with a digit)') });
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return;
      const value = typeof valueArg === 'string' ? valueArg : await vscode.window.showInputBox({ title: `Run secret: value of ${name}`, prompt: 'Stored in VS Code SecretStorage; masked in every stored log; never in docker inspect', password: true, ignoreFocusOut: true });
      if (!value) return;
      await context.secrets.store(secretKey(name), value);
      void vscode.window.showInformationMessage(`Bench Triage: secret ${name} saved in SecretStorage.`);
    }),
  );
}
