import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BenchTriageApi } from '../../../src/extension/extension';
import type { Node } from '../../../src/extension/commitsTree';

export async function api(): Promise<BenchTriageApi> {
  const ext = vscode.extensions.getExtension<BenchTriageApi>('bench-triage.bench-triage');
  assert.ok(ext, 'extension bench-triage.bench-triage is installed');
  return ext.activate();
}

export type Of<K extends Node['kind']> = Extract<Node, { kind: K }>;

/** The group (label) a commit sits in, and its role nodes. */
export async function locate(tree: BenchTriageApi['commitsTree'], commit: string): Promise<{ group: string; entry: Of<'entry'>; roles: Array<Of<'role'>> } | null> {
  for (const g of await tree.getChildren()) {
    if (g.kind !== 'group') continue;
    for (const e of await tree.getChildren(g)) {
      if (e.kind === 'entry' && e.entry.commit === commit) {
        return { group: g.title, entry: e, roles: (await tree.getChildren(e)).filter((n): n is Of<'role'> => n.kind === 'role') };
      }
    }
  }
  return null;
}

export async function until<T>(what: string, f: () => T | Promise<T>, ms = 60_000): Promise<NonNullable<T>> {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise(r => setTimeout(r, 200));
  }
}
