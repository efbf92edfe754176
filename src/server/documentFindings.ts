import { parseTree, findNodeAtLocation, type Node as JsonNode, type ParseError, printParseErrorCode } from 'jsonc-parser';
import { parsePerfCommand, type CheckOptions, type ParsedPerfCommand, type PerfProblem } from '../core/perfcmd';
import { detect } from '../core/ingest';
import { parseRulesFile } from '../core/classify/rulesFile';
import { stringToken, type StringToken } from './jsonString';

/** A finding with document offsets; the server turns it into an LSP diagnostic. */
export interface Finding {
  start: number;
  end: number;
  severity: 'error' | 'warning' | 'information' | 'hint';
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** A perf command found in a document, with what is needed for hovers, completion and fixes. */
export interface PerfCommandSite {
  token: StringToken;
  parsed: ParsedPerfCommand;
  /** The record's `models` (dataset rows), for the "fill --model" fix. */
  models: string[];
  /** True when the command sits in a JSON string (edits must be escaped). */
  json: boolean;
}

export interface Analysis {
  findings: Finding[];
  sites: PerfCommandSite[];
  kind: DocKind;
}
export type DocKind = 'jsonl' | 'json' | 'rules' | 'markdown' | 'other';

export interface AnalyzeOptions extends CheckOptions {
  /** Checks whether a dataset path exists (the server answers from the file system). */
  pathExists?: (p: string) => boolean;
}

export function docKind(uri: string): DocKind {
  if (/\/\.bench-triage\/rules\.json$/.test(uri)) return 'rules';
  if (/\.jsonl$/i.test(uri)) return 'jsonl';
  if (/\.json$/i.test(uri)) return 'json';
  if (/\.(md|markdown)$/i.test(uri)) return 'markdown';
  return 'other';
}

const LARGE_LINE = 8 * 1024 * 1024;

export function analyze(uri: string, text: string, opts: AnalyzeOptions = {}): Analysis {
  const kind = docKind(uri);
  const out: Analysis = { findings: [], sites: [], kind };
  try {
    if (kind === 'jsonl') analyzeJsonl(text, opts, out);
    else if (kind === 'json') analyzeJson(uri, text, opts, out);
    else if (kind === 'rules') analyzeRules(text, out);
    else if (kind === 'markdown') analyzeMarkdown(text, opts, out);
  } catch (e) {
    // A document must never take the server down: report what happened instead.
    out.findings.push({
      start: 0,
      end: 0,
      severity: 'warning',
      code: 'internal',
      message: `Bench Triage could not analyse this document: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
  return out;
}

function problemToFinding(p: PerfProblem, tok: StringToken): Finding {
  return { start: tok.at(p.start), end: tok.at(Math.max(p.start, p.end)), severity: p.severity, code: p.code, message: p.message, data: p.data };
}

/**
 * Parsed commands by text and options: a document is analysed again on every edit, and most of
 * its commands did not change (notes repeat the same command many times).
 */
const parseCache = new Map<string, ParsedPerfCommand>();
function parseCached(cmd: string, opts: CheckOptions): ParsedPerfCommand {
  if (cmd.length > 4096) return parsePerfCommand(cmd, opts);
  const key = `${opts.hostGpus ?? ''}|${(opts.blockedModels ?? []).join(',')}|${opts.vllmVersion ?? ''}|${cmd}`;
  let p = parseCache.get(key);
  if (!p) {
    if (parseCache.size >= 20_000) parseCache.clear();
    parseCache.set(key, (p = parsePerfCommand(cmd, opts)));
  }
  return p;
}

function checkCommand(tok: StringToken, models: string[], json: boolean, opts: AnalyzeOptions, out: Analysis, extra: CheckOptions = {}): void {
  const parsed = parseCached(tok.value, { ...opts, ...extra });
  out.sites.push({ token: tok, parsed, models, json });
  for (const p of parsed.problems) {
    if (p.code === 'unknown-script' && !/\bbench(mark)?/.test(tok.value)) continue; // not a benchmark at all
    out.findings.push(problemToFinding(p, tok));
  }
  const ds = parsed.flags.find(f => f.name === '--dataset-path' || f.name === '--dataset');
  if (ds?.value && opts.pathExists && !/^[\w-]+\/[\w.-]+$/.test(ds.value.text) && !opts.pathExists(ds.value.text)) {
    out.findings.push({
      start: tok.at(ds.value.start),
      end: tok.at(ds.value.end),
      severity: 'warning',
      code: 'dataset-missing',
      message: `dataset file ${ds.value.text} does not exist (relative to the workspace)`,
    });
  }
}

function stringAt(text: string, node: JsonNode | undefined): StringToken | null {
  if (!node || node.type !== 'string') return null;
  return stringToken(text.slice(node.offset, node.offset + node.length), node.offset);
}

function modelsOf(record: JsonNode | undefined): string[] {
  const m = record && findNodeAtLocation(record, ['models']);
  if (!m || m.type !== 'array') return [];
  return (m.children ?? []).filter(c => c.type === 'string' && c.value !== 'N/A').map(c => c.value as string);
}

/** Dataset rows: one JSON object per line, with `perf_command` (string or null). */
function analyzeJsonl(text: string, opts: AnalyzeOptions, out: Analysis): void {
  let offset = 0;
  for (const raw of text.split('\n')) {
    // A byte-order mark before the first row is not part of it (the CLI reads such files too).
    const bom = offset === 0 && raw.charCodeAt(0) === 0xfeff ? 1 : 0;
    const line = bom ? raw.slice(1) : raw;
    const start = offset + bom;
    offset += raw.length + 1;
    if (!line.trim()) continue;
    if (line.length > LARGE_LINE) {
      out.findings.push({
        start,
        end: start + 200,
        severity: 'information',
        code: 'large-line',
        message: `line of ${(line.length / 1048576).toFixed(0)} MB not analysed`,
      });
      continue;
    }
    const errors: ParseError[] = [];
    const root = parseTree(line, errors, { disallowComments: true });
    if (errors.length || !root || root.type !== 'object') {
      const e = errors[0];
      out.findings.push({
        start: start + (e?.offset ?? 0),
        end: start + (e?.offset ?? 0) + (e?.length ?? 1),
        severity: 'error',
        code: 'invalid-json',
        message: e ? `invalid JSON: ${printParseErrorCode(e.error)}` : 'not a JSON object',
      });
      continue;
    }
    checkRecord(line, root, start, opts, out, true);
  }
}

/** A record with (or expected to have) a perf command. `base` shifts node offsets into the document. */
function checkRecord(text: string, record: JsonNode, base: number, opts: AnalyzeOptions, out: Analysis, requirePerf: boolean): void {
  const pc = findNodeAtLocation(record, ['perf_command']);
  const tok = stringAt(text, pc);
  if (tok) {
    checkCommand({ ...tok, start: tok.start + base, end: tok.end + base, at: i => tok.at(i) + base }, modelsOf(record), true, opts, out);
    return;
  }
  const isRecord = !!findNodeAtLocation(record, ['commit_hash']);
  if (requirePerf && isRecord) {
    const at = pc?.parent ?? record;
    out.findings.push({
      start: base + at.offset,
      end: base + at.offset + Math.min(at.length, pc ? at.length : 1),
      severity: 'information',
      code: 'no-perf-command',
      message: 'record without a perf command: nothing can be benchmarked for this commit',
    });
  }
}

function analyzeJson(uri: string, text: string, opts: AnalyzeOptions, out: Analysis): void {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true });
  if (errors.length) {
    const e = errors[0];
    out.findings.push({
      start: e.offset,
      end: e.offset + Math.max(1, e.length),
      severity: 'error',
      code: 'invalid-json',
      message: `invalid JSON: ${printParseErrorCode(e.error)}`,
    });
    return;
  }
  if (!root) return;
  // Dataset-like arrays of records.
  if (root.type === 'array') {
    for (const r of root.children ?? []) if (r.type === 'object' && findNodeAtLocation(r, ['perf_command'])) checkRecord(text, r, 0, opts, out, true);
    return;
  }
  if (root.type !== 'object') return;
  const value = safeParse(text);
  const name = uri.slice(uri.lastIndexOf('/') + 1);
  const role = /_(baseline|human|agent)_result\.json$/.exec(name)?.[1] ?? null;
  const d = detect(value, { path: decodeURIComponent(uri), folderAgent: null, fileRole: role as never, siblings: new Map() });
  const version = (findNodeAtLocation(root, ['result', 'baseline_version'])?.value ?? findNodeAtLocation(root, ['baseline_version'])?.value) as
    string | undefined;
  const cleanVersion = typeof version === 'string' ? (/\d+\.\d+\.\d+\S*/.exec(version.split('\n').pop() ?? '')?.[0] ?? null) : null;
  for (const path of [['perf_command'], ['instance', 'perf_command'], ['result', 'perf_command']]) {
    const tok = stringAt(text, findNodeAtLocation(root, path));
    if (tok) checkCommand(tok, modelsOf(findNodeAtLocation(root, ['instance'])), true, opts, out, { vllmVersion: cleanVersion });
  }
  if (d.kind === 'unknown' && /result/.test(name)) {
    out.findings.push({
      start: root.offset,
      end: root.offset + 1,
      severity: 'warning',
      code: 'unknown-schema',
      message: `not a known result schema: ${d.reason}`,
    });
    return;
  }
  if (d.kind !== 'run') return;
  for (const run of d.drafts) {
    for (const log of run.logs) {
      if (!log.truncation) continue;
      const node = findNodeAtLocation(root, log.field.split('.'));
      if (node)
        out.findings.push({
          start: node.offset,
          end: node.offset + Math.min(node.length, 80),
          severity: 'information',
          code: 'truncated-output',
          message: `${log.field} was cut by the pipeline: only the ${log.truncation.kind} ${log.truncation.cap.toLocaleString('en')} characters were kept`,
          data: { ...log.truncation },
        });
    }
  }
  suspiciousUnits(root, d.schema, role, out);
}

function suspiciousUnits(root: JsonNode, schema: string, role: string | null, out: Analysis): void {
  const note = (path: (string | number)[], message: string, severity: Finding['severity'] = 'information') => {
    const n = findNodeAtLocation(root, path);
    if (n?.parent) out.findings.push({ start: n.parent.offset, end: n.parent.offset + n.parent.length, severity, code: 'suspicious-unit', message });
  };
  for (const r of ['baseline', 'human', 'agent'])
    if (findNodeAtLocation(root, ['result', `${r}_metrics`, 'throughput']))
      note(['result', `${r}_metrics`, 'throughput'], '`throughput` comes from a catch-all regex: its unit (req/s or tok/s) is not known');
  for (const k of ['avg_latency_s', 'p50_latency_s', 'p99_latency_s'])
    if (findNodeAtLocation(root, [k])) note([k], `${k} is in seconds (other latencies are ms); Bench Triage converts it to ms`);
  if (schema === 'S2' && role === 'baseline') {
    const m = findNodeAtLocation(root, ['metrics']);
    const keys = (m?.children ?? []).map(c => c.children?.[0]?.value);
    if (keys.includes('output_token_throughput_tok_s') && !keys.includes('request_throughput_req_s'))
      note(
        ['metrics', 'output_token_throughput_tok_s'],
        'the baseline inline parser may have stored requests/s or an unrelated "throughput" here, not output tokens/s',
        'warning',
      );
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function analyzeRules(text: string, out: Analysis): void {
  const { problems } = parseRulesFile(text);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors);
  for (const p of problems) {
    let node =
      root && p.field
        ? findNodeAtLocation(
            root,
            p.field.split('.').map(s => (/^\d+$/.test(s) ? Number(s) : s)),
          )
        : undefined;
    // A missing field: point at the rule that lacks it.
    for (let path = p.field.split('.'); !node && root && path.length > 1; path = path.slice(0, -1))
      node = findNodeAtLocation(
        root,
        path.slice(0, -1).map(s => (/^\d+$/.test(s) ? Number(s) : s)),
      );
    const start = node?.offset ?? 0;
    out.findings.push({
      start,
      end: start + (node ? Math.min(node.length, 200) : 1),
      severity: p.severity,
      code: 'rule',
      message: `${p.ruleId ? `rule ${p.ruleId}` : p.index !== null ? `rule #${p.index}` : 'rules file'}: ${p.message}`,
    });
  }
}

/**
 * Perf commands in Markdown: found from their literal (`benchmark_*.py`, `vllm bench`), then
 * bounded by the enclosing code span, table cell or line — no regex runs along the whole text.
 */
function analyzeMarkdown(text: string, opts: AnalyzeOptions, out: Analysis): void {
  const seen = new Set<number>();
  for (const needle of ['benchmark_', 'vllm bench ']) {
    for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
      // Look back at most 300 characters for the start (line, code span, table cell): every
      // backward search is bounded, so a long line with many commands stays linear.
      let start = i;
      while (start > 0 && i - start < 300 && !'\n`|'.includes(text[start - 1])) start--;
      while (start < i && /[\s$>]/.test(text[start])) start++;
      let end = i;
      while (end < text.length && end - i < 2000 && !'`|\n'.includes(text[end])) end++;
      const value = text.slice(start, end).replace(/\s+$/, '');
      if (
        seen.has(start) ||
        !/^(?:\S*python3?\s+)?\S*(?:benchmark_(?:serving|latency|throughput|prefix_caching)\.py|vllm bench (?:serve|latency|throughput))\b/.test(value)
      )
        continue;
      seen.add(start);
      checkCommand({ value, start, end: start + value.length, at: k => start + Math.min(k, value.length) }, [], false, opts, out);
    }
  }
}
