import * as vscode from 'vscode';
import type { HostConfig } from '../runner/hosts';
import { DEFAULT_TEMPLATES, type ImageTemplates } from '../runner/plan';

/** The configured Docker hosts; without any, one host named "H100" on `DOCKER_HOST` with `hostGpus` GPUs. */
export function configuredHosts(scope?: vscode.Uri): HostConfig[] {
  const c = vscode.workspace.getConfiguration('benchTriage', scope);
  const hosts = (c.get<Array<Partial<HostConfig>>>('hosts') ?? []).filter(h => h && typeof h === 'object');
  if (!hosts.length) return [{ label: 'H100', docker: '', gpus: c.get<number>('hostGpus', 1) }];
  return hosts.map((h, i) => ({
    label: String(h.label ?? `host ${i + 1}`), docker: String(h.docker ?? ''), gpus: Number.isInteger(h.gpus) ? Number(h.gpus) : 1,
    maxParallel: typeof h.maxParallel === 'number' ? h.maxParallel : undefined, tls: h.tls, ssh: h.ssh,
  }));
}

export function imageTemplates(scope?: vscode.Uri): ImageTemplates {
  const t = vscode.workspace.getConfiguration('benchTriage', scope).get<Partial<ImageTemplates>>('imageTemplates') ?? {};
  return { human: t.human || DEFAULT_TEMPLATES.human, baseline: t.baseline || DEFAULT_TEMPLATES.baseline };
}

export function timeouts(scope?: vscode.Uri): { serverS: number; benchmarkS: number } {
  const c = vscode.workspace.getConfiguration('benchTriage', scope);
  return { serverS: c.get<number>('serverTimeoutSeconds', 600), benchmarkS: c.get<number>('benchmarkTimeoutSeconds', 3600) };
}
