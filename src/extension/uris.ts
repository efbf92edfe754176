import * as vscode from 'vscode';

/**
 * Every URI scheme of the extension, each with its to/from helpers: nothing else builds or
 * parses these URIs. All of them are read-only documents.
 */
export const SCHEMES = {
  /** Log text embedded in a result JSON field, as its own document (line numbers match the evidence). */
  embeddedLog: 'bench-triage-log',
  /** One run log file on disk, read-only, tailing while the run writes it. */
  liveLog: 'bench-triage-run',
  /** A whole run: every phase's logs in order under phase headers, following the run. */
  runTranscript: 'bench-triage-transcript',
  /** The two sides of an agent-vs-human diff. */
  diff: 'bench-triage-diff',
  /** Documents the extension writes for reading (Explain): read-only, never an Untitled buffer to save. */
  generated: 'bench-triage-doc',
} as const;

/** A JSON field's log text; the name ends in `.vllm.log` for the log language. */
export function embeddedLogUri(file: vscode.Uri, field: string): vscode.Uri {
  return file.with({ scheme: SCHEMES.embeddedLog, path: `${file.path}/${field}.vllm.log`, query: JSON.stringify({ scheme: file.scheme, field }) });
}
export function fromEmbeddedLogUri(uri: vscode.Uri): { file: vscode.Uri; field: string } | null {
  if (uri.scheme !== SCHEMES.embeddedLog) return null;
  let q: { scheme?: unknown; field?: unknown };
  try {
    q = JSON.parse(uri.query);
  } catch {
    return null;
  }
  if (typeof q.scheme !== 'string' || typeof q.field !== 'string') return null;
  const suffix = `/${q.field}.vllm.log`;
  if (!uri.path.endsWith(suffix)) return null;
  return { file: uri.with({ scheme: q.scheme, path: uri.path.slice(0, -suffix.length), query: '' }), field: q.field };
}

export const liveLogUri = (file: vscode.Uri): vscode.Uri => file.with({ scheme: SCHEMES.liveLog });
export const fromLiveLogUri = (uri: vscode.Uri): vscode.Uri | null => (uri.scheme === SCHEMES.liveLog ? uri.with({ scheme: 'file' }) : null);

/** A run's transcript: `<run folder>/run.vllm.log` under its own scheme (the folder holds run.json). */
export const runTranscriptUri = (runDir: string): vscode.Uri =>
  vscode.Uri.file(`${runDir.replace(/\/+$/, '')}/run.vllm.log`).with({ scheme: SCHEMES.runTranscript });
export function fromRunTranscriptUri(uri: vscode.Uri): string | null {
  if (uri.scheme !== SCHEMES.runTranscript || !uri.path.endsWith('/run.vllm.log')) return null;
  return uri.with({ scheme: 'file', path: uri.path.slice(0, -'/run.vllm.log'.length) }).fsPath;
}

export const diffUri = (commit8: string, side: 'human' | 'agent', file: string): vscode.Uri =>
  vscode.Uri.from({ scheme: SCHEMES.diff, path: `/${commit8}/${side}/${file}` });
