import * as vscode from 'vscode';
import { ROLES, type Role } from '../../core/model';
import type { CommitTriage } from '../../core/compare';
import { EntryKeys } from '../../app/identity';
import type { FolderScan, Store } from '../store';
import { EntryNode, RoleNode } from '../tree/commitNodes';
import { BuildNode, RunNode } from '../tree/runsTree';
import type { CommandId } from './ids';

/**
 * Arguments as commands receive them, checked. VS Code passes whatever the place of invocation
 * has — the selected tree node to a view-title button, the clicked node to a context menu, the
 * lens's arguments to a CodeLens, nothing from the palette — so every command takes `unknown`
 * and reads what it needs through these, never trusting a shape.
 */

/** A commit-or-role target: which folder, commit, agent and roles; the cause that blocks it (for fix proposals). */
export interface Target {
  folder: FolderScan;
  commit: string;
  agent: string | null;
  roles: Role[];
  entry: CommitTriage | null;
  cause: string | null;
}

const isHex = (s: unknown): s is string => typeof s === 'string' && /^[0-9a-f]{7,40}$/.test(s);
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/**
 * What commit-level commands act on: an entry node, a role node (that role only), an entry key
 * string, a commit hash (prefix), or `{ commit, agent }` from a webview. Null for anything else.
 */
export function targetOf(store: Store, arg: unknown, role?: unknown): Target | null {
  // A finished image build in the Runs view: its commit, the role the image is for (the action
  // stays there, where a notification's button would vanish).
  if (arg instanceof BuildNode) return targetOf(store, { commit: arg.build.record.commit }, arg.build.record.role);
  if (arg instanceof RoleNode)
    return {
      folder: arg.folder,
      commit: arg.entry.commit,
      agent: arg.entry.agent,
      roles: [arg.role],
      entry: arg.entry,
      cause: arg.view.classification?.cause ?? null,
    };
  if (arg instanceof EntryNode) {
    const e = arg.entry;
    return {
      folder: arg.folder,
      commit: e.commit,
      agent: e.agent,
      roles: [...ROLES],
      entry: e,
      cause: ROLES.map(r => e.roles[r].classification?.cause).find(Boolean) ?? null,
    };
  }
  // One role, or a list (a build's Rerun offers exactly the roles that have not succeeded).
  const roles = isRole(role) ? [role] : Array.isArray(role) && role.length && role.every(isRole) ? ROLES.filter(r => role.includes(r)) : [...ROLES];
  if (typeof arg === 'string' && arg.startsWith('entry|')) {
    const key = EntryKeys.parse(arg);
    const hit = key && store.entry(key);
    return hit ? { folder: hit.folder, commit: hit.entry.commit, agent: hit.entry.agent, roles, entry: hit.entry, cause: null } : null;
  }
  const obj = arg && typeof arg === 'object' && !Array.isArray(arg) ? (arg as { commit?: unknown; agent?: unknown }) : null;
  const commit = isHex(arg) ? arg : obj && isHex(obj.commit) ? obj.commit : null;
  if (!commit) return null;
  const agent = obj && typeof obj.agent === 'string' ? obj.agent : null;
  const found = store.folderOfCommit(commit);
  if (!found) return null;
  const entries = found.folder.entries.filter(e => e.commit === found.hash);
  const entry = entries.find(e => e.agent === agent) ?? (agent === null ? (entries[0] ?? null) : null);
  return { folder: found.folder, commit: found.hash, agent: entry?.agent ?? agent, roles, entry, cause: null };
}

export const roleNodeOf = (arg: unknown): RoleNode | null => (arg instanceof RoleNode && arg.view.run ? arg : null);
export const runNodeOf = (arg: unknown): RunNode | null => (arg instanceof RunNode ? arg : null);
export const stringArg = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const uriArg = (v: unknown): vscode.Uri | undefined => (v instanceof vscode.Uri ? v : undefined);
export const positionArg = (v: unknown): { line: number; column: number } | undefined => {
  const o = v as { line?: unknown; column?: unknown } | null;
  return o && typeof o === 'object' && Number.isInteger(o.line) && Number.isInteger(o.column) && (o.line as number) >= 1
    ? { line: o.line as number, column: Math.max(1, o.column as number) }
    : undefined;
};

/** Registers a command with its typed id; a failure reaches the user as a message naming the command, never silently. */
export function register(context: vscode.ExtensionContext, id: CommandId, fn: (...args: unknown[]) => unknown): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        if (e instanceof vscode.CancellationError) return undefined;
        void vscode.window.showErrorMessage(
          `Bench Triage: ${id.replace('benchTriage.', '')} failed: ${e instanceof Error ? e.message.replace(/^Bench Triage: /, '') : String(e)}`,
        );
        return undefined;
      }
    }),
  );
}

export const pickCommitFirst = () => void vscode.window.showInformationMessage('Bench Triage: pick a commit or a role in the Commits view.');
