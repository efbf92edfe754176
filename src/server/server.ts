import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createConnection,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  DiagnosticSeverity,
  CodeActionKind,
  CompletionItemKind,
  MarkupKind,
  type CodeAction,
  type Diagnostic,
  type Connection,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { LineDocument } from './lineDocument';
import { analyze, type Analysis, type AnalyzeOptions, type Finding } from './documentFindings';
import { complete, fixes, hover } from './features';
import { scan } from '../core/ingest/scan';
import { nodeFileSource } from '../platform/nodeFileSource';

/**
 * The Bench Triage language server: checks perf commands (dataset JSON/JSONL, result files,
 * Markdown reports), result files and `.bench-triage/rules.json`. Runs in its own process, over
 * IPC from the extension or `--stdio` for any editor. Every handler is guarded: a malformed
 * document yields a finding, never a crash.
 */
export interface ServerSettings {
  hostGpus: number;
  blockedModels: string[];
}
const DEFAULTS: ServerSettings = { hostGpus: 1, blockedModels: ['deepseek-v3', 'deepseek-r1', 'nemotron-4-340b', 'dbrx', 'Llama-4-Scout'] };

/**
 * Settings as the client sent them, checked: a value of the wrong type is a configuration error
 * said once, and the default applies (never a check that breaks or silently turns off).
 */
export function readSettings(raw: unknown): { settings: ServerSettings; problems: string[] } {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const out: ServerSettings = { ...DEFAULTS };
  const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);
  if (r.hostGpus !== undefined) {
    if (typeof r.hostGpus === 'number' && Number.isInteger(r.hostGpus) && r.hostGpus >= 0 && r.hostGpus <= 1024) out.hostGpus = r.hostGpus;
    else problems.push(`benchTriage.hostGpus: ${shown(r.hostGpus)} is not a whole number of GPUs; ${DEFAULTS.hostGpus} applies`);
  }
  // The host a run goes to by default is the first of benchTriage.hosts (as Explain and Rerun take
  // it); hostGpus speaks only when no host is set. Two screens never give one host two GPU counts.
  const first = Array.isArray(r.hosts) ? (r.hosts as unknown[])[0] : undefined;
  if (first && typeof first === 'object') {
    const g = (first as { gpus?: unknown }).gpus;
    out.hostGpus = typeof g === 'number' && Number.isInteger(g) && g >= 0 && g <= 1024 ? g : 1;
  }
  if (r.blockedModels !== undefined) {
    if (Array.isArray(r.blockedModels) && r.blockedModels.every(m => typeof m === 'string')) out.blockedModels = r.blockedModels as string[];
    else problems.push(`benchTriage.blockedModels: ${shown(r.blockedModels)} is not a list of model names; the built-in list applies`);
  }
  return { settings: out, problems };
}

const SEVERITY: Record<Finding['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** Diagnostics a document gets at most; the rest are summed up in one more. */
export const MAX_DIAGNOSTICS = 300;
/** Quick fixes offered for one request (a range over a whole 20 000-row file asks for all of them). */
const MAX_ACTIONS = 200;
const MAX_MESSAGE = 500;

/** Findings as LSP diagnostics, capped in number and message length (a 5 MB line must not become 189 MB of diagnostics). */
export function toDiagnostics(doc: TextDocument, findings: readonly Finding[]): Diagnostic[] {
  const cut = (s: string) => (s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE - 1)}…` : s);
  const shown = findings.slice(0, MAX_DIAGNOSTICS);
  const out: Diagnostic[] = shown.map(f => ({
    range: { start: doc.positionAt(f.start), end: doc.positionAt(Math.min(f.end, f.start + 100_000)) },
    severity: SEVERITY[f.severity],
    code: f.code,
    source: 'bench-triage',
    message: cut(f.message),
    // Quick-fix data travels with the diagnostic; a huge value (a 5 MB "placeholder") does not.
    data: f.data && JSON.stringify(f.data).length <= 2000 ? f.data : undefined,
  }));
  if (findings.length > shown.length) {
    const counts = new Map<string, number>();
    for (const f of findings.slice(shown.length)) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
    const first = findings[shown.length];
    out.push({
      range: { start: doc.positionAt(first.start), end: doc.positionAt(first.start) },
      severity: DiagnosticSeverity.Information,
      code: 'more-findings',
      source: 'bench-triage',
      message: `${findings.length - shown.length} more findings in this document are not shown (${[...counts].map(([c, n]) => `${c} ×${n}`).join(', ')}); the first ${MAX_DIAGNOSTICS} are`,
    });
  }
  return out;
}

export function startServer(connection: Connection): void {
  // Documents kept by line: an edit costs the lines it touches, not the whole text (see LineDocument).
  const documents = new TextDocuments<LineDocument>({
    create: (uri, languageId, version, content) => new LineDocument(uri, languageId, version, content),
    update: (doc, changes, version) => {
      doc.update(changes, version);
      return doc;
    },
  });
  const analyses = new Map<string, { version: number; a: Analysis }>();
  const timers = new Map<string, NodeJS.Timeout>();
  let settings: ServerSettings = DEFAULTS;
  // Said once the client is ready to show them (after `initialized`).
  let settingProblems: string[] = [];
  let roots: string[] = [];

  const options = (): AnalyzeOptions => ({
    hostGpus: settings.hostGpus,
    blockedModels: settings.blockedModels,
    pathExists: p => (path.isAbsolute(p) ? existsSync(p) : roots.some(r => existsSync(path.join(r, p)))),
  });

  // Models named anywhere in the workspace (datasets, mappings, results), scanned once, lazily.
  const workspaceModels = new Set<string>();
  let modelScan: Promise<void> | null = null;
  const scanModels = () =>
    (modelScan ??= (async () => {
      for (const root of roots) {
        try {
          for (const c of (await scan(nodeFileSource(root))).commits) for (const m of c.models) workspaceModels.add(m);
        } catch {
          /* best effort */
        }
      }
    })());

  const analysisOf = (doc: TextDocument): Analysis => {
    const hit = analyses.get(doc.uri);
    if (hit && hit.version === doc.version) return hit.a;
    const a = analyze(doc.uri, doc.getText(), options());
    analyses.set(doc.uri, { version: doc.version, a });
    return a;
  };

  const published = new Map<string, number>();
  const publish = (doc: TextDocument, force = false) => {
    // didOpen and the first didChangeContent carry the same version: send once.
    if (!force && published.get(doc.uri) === doc.version) return;
    published.set(doc.uri, doc.version);
    const a = analysisOf(doc);
    void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: toDiagnostics(doc, a.findings) });
  };

  connection.onInitialize(params => {
    const read = readSettings(params.initializationOptions);
    settings = read.settings;
    settingProblems = read.problems;
    roots = (params.workspaceFolders ?? []).flatMap(f => {
      try {
        return [fileURLToPath(f.uri)];
      } catch {
        return [];
      }
    });
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        completionProvider: { triggerCharacters: ['-', ' '] },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      },
      serverInfo: { name: 'bench-triage', version: '0.1.0' },
    };
  });

  connection.onInitialized(() => {
    for (const m of settingProblems) void connection.window.showWarningMessage(m);
    settingProblems = [];
  });

  connection.onDidChangeConfiguration(change => {
    const read = readSettings(change.settings?.benchTriage);
    settings = read.settings;
    for (const m of read.problems) void connection.window.showWarningMessage(m);
    analyses.clear();
    for (const d of documents.all()) publish(d, true);
  });

  documents.onDidOpen(e => publish(e.document));
  documents.onDidChangeContent(e => {
    // Typing bursts: analyse once the edits pause.
    clearTimeout(timers.get(e.document.uri));
    timers.set(
      e.document.uri,
      setTimeout(() => {
        timers.delete(e.document.uri);
        const d = documents.get(e.document.uri);
        if (d) publish(d);
      }, 50),
    );
  });
  documents.onDidClose(e => {
    clearTimeout(timers.get(e.document.uri));
    analyses.delete(e.document.uri);
    published.delete(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  connection.onHover(p => {
    const doc = documents.get(p.textDocument.uri);
    if (!doc) return null;
    try {
      const md = hover(analysisOf(doc), doc.getText(), doc.offsetAt(p.position));
      return md ? { contents: { kind: MarkupKind.Markdown, value: md } } : null;
    } catch {
      return null;
    }
  });

  connection.onCompletion(async p => {
    const doc = documents.get(p.textDocument.uri);
    if (!doc) return [];
    try {
      await Promise.race([scanModels(), new Promise(r => setTimeout(r, 2000))]);
      const models = new Set<string>(workspaceModels);
      for (const d of documents.all())
        for (const s of analysisOf(d).sites) {
          if (s.parsed.model) models.add(s.parsed.model);
          for (const m of s.models) models.add(m);
        }
      return complete(analysisOf(doc), doc.offsetAt(p.position), models).map(c => ({
        label: c.label,
        detail: c.detail,
        documentation: c.documentation,
        kind: c.kind === 'flag' ? CompletionItemKind.Property : CompletionItemKind.Value,
        textEdit: { range: { start: doc.positionAt(c.edit.start), end: doc.positionAt(c.edit.end) }, newText: c.edit.newText },
      }));
    } catch {
      return [];
    }
  });

  connection.onCodeAction(p => {
    const doc = documents.get(p.textDocument.uri);
    if (!doc) return [];
    try {
      const a = analysisOf(doc);
      const start = doc.offsetAt(p.range.start),
        end = doc.offsetAt(p.range.end);
      // Each action carries the diagnostics of its own finding (same code, same start), found by
      // key: linear in the findings and diagnostics of the range, never one list per action.
      const key = (code: unknown, line: number, ch: number) => `${String(code)}@${line}:${ch}`;
      const byKey = new Map<string, Diagnostic[]>();
      for (const d of p.context.diagnostics.slice(0, MAX_DIAGNOSTICS + 1)) {
        const k = key(d.code, d.range.start.line, d.range.start.character);
        (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(d);
      }
      const out: CodeAction[] = [];
      for (const f of a.findings) {
        if (f.start > end || f.end < start) continue;
        const pos = doc.positionAt(f.start);
        for (const x of fixes(a, f)) {
          out.push({
            title: x.title,
            kind: CodeActionKind.QuickFix,
            isPreferred: x.preferred,
            diagnostics: byKey.get(key(f.code, pos.line, pos.character)) ?? [],
            edit: { changes: { [doc.uri]: [{ range: { start: doc.positionAt(x.edit.start), end: doc.positionAt(x.edit.end) }, newText: x.edit.newText }] } },
          });
          if (out.length >= MAX_ACTIONS) return out;
        }
      }
      return out;
    } catch {
      return [];
    }
  });

  // Lets tests and the restart logic find the process.
  connection.onRequest('benchTriage/pid', () => process.pid);

  documents.listen(connection);
  connection.listen();
}

if (require.main === module) {
  const connection = process.argv.includes('--stdio') ? createConnection(process.stdin, process.stdout) : createConnection(ProposedFeatures.all);
  // Last line of defence: log, never die, on a bug in a handler.
  process.on('uncaughtException', e => {
    try {
      connection.console.error(`bench-triage server: ${e.stack ?? e}`);
    } catch {
      /* stdout closed */
    }
  });
  startServer(connection);
}
