import { constants, promises as fs, statSync } from 'node:fs';
import { kindOf } from '../platform/boundedRead';
import { Classifier, LogClassifier, parseLabel, type LogLabel, type Rule } from '../core/classify';
import { pValueText } from '../core/report/pValue';
import { buildReport, renderMarkdown } from '../core/report';
import { parseSelector, selectEntries } from '../core/campaign/plan';
import { lineChunks } from '../platform/lineChunks';
import type { PrimaryOverride } from '../core/metrics';
import { analyzeFolder, entryJson, loadUserRules } from './analyzeFolder';
import { clean } from './terminal';
import { createHash } from 'node:crypto';
import { listForAnswer } from '../app/savedAnswers';

type Out = (s: string) => void;

function requireFolder(folder: string, cmd: string): void {
  let ok = false;
  try {
    ok = statSync(folder).isDirectory();
  } catch {
    /* reported below */
  }
  if (!ok) throw new Error(`${cmd}: ${folder} is not a folder`);
}

export interface AnalysisArgs {
  folder: string;
  tieBand: number;
  rules?: string;
  primaryMetric?: PrimaryOverride;
  includeIncomparable?: boolean;
  cache?: string;
  allowFailedRequests?: boolean;
}

/**
 * `outBytes` prints a saved answer's output as its bytes, then a newline (as `out` ends a line):
 * tens of MB at 10 000 commits, decoded and encoded again for nothing otherwise.
 */
export async function classifyCommand(
  a: AnalysisArgs & { json: boolean; select?: string },
  out: Out,
  err: Out,
  outBytes: (b: Uint8Array) => void = b => out(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')),
): Promise<number> {
  requireFolder(a.folder, 'classify');
  const selector = a.select ? parseSelector(a.select) : null;
  const rules = loadUserRules(a.folder, a.rules, err);
  // With --cache: the folder is listed first, and an answer saved for the same question about the
  // same listing is printed as it was (nothing else loaded); else it is computed and saved.
  const listed = a.cache
    ? await listForAnswer(
        a.folder,
        a.cache,
        {
          command: 'classify',
          json: a.json,
          select: a.select ?? null,
          tieBand: a.tieBand,
          rules: a.rules ?? null,
          primaryMetric: a.primaryMetric ?? null,
          allowFailedRequests: !!a.allowFailedRequests,
        },
        { rules: createHash('sha1').update(JSON.stringify(rules)).digest('hex') },
      )
    : null;
  const saved = await listed?.recall();
  if (saved) {
    for (const line of saved.stderr) err(line);
    if (saved.stdout.length) outBytes(saved.stdout);
    return 0;
  }
  const printed: string[] = [];
  const say = (s: string) => {
    printed.push(s);
    out(s);
  };
  const an = await analyzeFolder(a.folder, {
    tieBand: a.tieBand,
    rules,
    primaryMetric: a.primaryMetric,
    cache: a.cache,
    allowFailedRequests: a.allowFailedRequests,
    source: listed?.source,
  });
  for (const b of an.workspace.budgetReports)
    err(`rule ${b.rule} exceeded its time budget on ${clean(b.file)} (${b.elapsedMs} ms); user rules were stopped for that file\n`);
  // `--select` as campaigns take it; `ever=CATEGORY` finds a commit by any attempt's category, not only its latest.
  const entries = selector ? selectEntries(an.entries, selector, id => an.classifications.get(id)?.category ?? null) : an.entries;
  if (a.json) say(JSON.stringify(entries.map(entryJson), null, 2));
  else
    for (const e of entries) {
      const role = e.blockingRole ? e.roles[e.blockingRole] : null;
      const why = role?.classification
        ? ` — ${e.blockingRole}: ${clean(role.classification.description.split('\n')[0]).slice(0, 120)}`
        : !e.pair.ok && e.comparison
          ? ` — not comparable: ${clean(e.pair.reasons[0] ?? '')}`
          : e.baselineNote
            ? ` — baseline not comparable: ${clean(e.baselineNote)}`
            : '';
      const c = e.comparison;
      // A single-run headline says so; other headline metrics judged on repeats or per-request
      // samples (a --save-detailed run's latencies) are named beside it, not left to --json.
      const firmer = c && c.basis === 'single' ? c.metrics.filter(m => m.headline && m.key !== c.metric && m.basis !== 'single') : [];
      const verdict =
        c && e.pair.ok
          ? `${e.verdict} on ${c.label} ${c.agentVsHuman > 0 ? '+' : ''}${c.agentVsHuman.toFixed(1)} %${c.basis === 'single' ? ' (single run)' : ` (${c.basis}, 95 % CI ${c.ci![0].toFixed(1)}…${c.ci![1].toFixed(1)} %, p ${pValueText(c.p)})`}${c.mixed ? ' mixed' : ''}${firmer.length ? `; ${firmer.map(m => `${m.label} ${m.verdict} ${m.agentVsHuman > 0 ? '+' : ''}${m.agentVsHuman.toFixed(1)} % (${m.basis}, p ${pValueText(m.p)})`).join(', ')}` : ''}`
          : e.verdict;
      say(`${e.project.padEnd(7)} ${e.commit.slice(0, 8)} ${clean(e.agent ?? '-').padEnd(12)} ${e.outcome.padEnd(22)} ${verdict}${why}`);
    }
  // A user rule stopped by its time budget makes the answer depend on the machine's speed: not kept.
  if (listed && !an.workspace.budgetReports.length) await listed.keep({ stdout: printed.join('\n'), stderr: [] });
  return 0;
}

export interface LogClassification {
  file: string;
  category: string | null;
  cause: string | null;
  fixability: string | null;
  description: string | null;
  /** How the category was reached: a signature, a context inference, a generic string, or nothing (unclassified). */
  strength: string | null;
  evidence: { line: number; text: string } | null;
  rule: string | null;
  /** Every finding, the primary first (a second signature of another category is a second opinion). */
  findings: Array<{ category: string; cause: string | null; rule: string | null; strength: string; line: number | null }>;
  /** Unclassified: the last error-form lines, where to start reading. */
  candidates: Array<{ line: number; text: string }>;
  metrics: Record<string, number>;
  /** Labels read from a `# expected: …` header (a labelled corpus file), if any. */
  expected?: string;
  /** The learned stage's tokens and answer, where it was asked. */
  learned?: { tokens: string[]; guess: { category: string; p: number } | null };
}

/** Header bytes looked at for `# expected: …` labels. */
const LABEL_HEAD = 16 * 1024;

/** The label header of a corpus file (role and context for the rules); none for a plain log. */
/** What a path named as a log is: 'file', or why it is not read (a FIFO would wait forever, /dev/zero never ends). */
export async function logFileKind(file: string): Promise<string> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (e as Error).message})`;
  }
  try {
    const st = await fh.stat();
    return st.isFile() ? 'file' : `is ${kindOf(st)}, not a regular file`;
  } finally {
    await fh.close();
  }
}

/** 'le' / 'be' for a log that starts with a UTF-16 byte-order mark (Windows tools write them). */
async function utf16Of(file: string): Promise<'le' | 'be' | null> {
  const h = await fs.open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await h.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0xff && b[1] === 0xfe ? 'le' : bytesRead === 2 && b[0] === 0xfe && b[1] === 0xff ? 'be' : null;
  } finally {
    await h.close();
  }
}

/** A UTF-16 log as UTF-8 chunks, streamed (an odd byte at a chunk's end waits for the next). */
async function* utf16Chunks(file: string, order: 'le' | 'be'): AsyncIterable<Buffer> {
  const dec = new TextDecoder(order === 'le' ? 'utf-16le' : 'utf-16be');
  for await (const chunk of lineChunks(file)) yield Buffer.from(dec.decode(chunk, { stream: true }).replace(/^\uFEFF/, ''), 'utf8');
  const tail = dec.decode();
  if (tail) yield Buffer.from(tail, 'utf8');
}

async function labelOf(file: string, utf16: 'le' | 'be' | null = null): Promise<LogLabel | null> {
  if (utf16) return null;
  const h = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(LABEL_HEAD);
    const { bytesRead } = await h.read(buf, 0, LABEL_HEAD, 0);
    const head = buf.subarray(0, bytesRead).toString('utf8');
    // A byte-order mark must not hide the header's `# expected:` line.
    const bom = head.charCodeAt(0) === 0xfeff;
    const label = parseLabel(bom ? head.slice(1) : head);
    if (bom && label.headerBytes > 0) label.headerBytes += 3;
    return label.headerBytes > 0 ? label : null;
  } finally {
    await h.close();
  }
}

/**
 * Classifies one plain log, streaming (bounded memory whatever its size). A labelled corpus file's
 * header (`# expected:`, `# role:`, `# context:`) is not part of the log: it is skipped, and its
 * role and context go to the rules.
 */
export async function classifyLogFile(
  file: string,
  rules: Rule[] = [],
  classifier = new Classifier({ userRules: rules }),
  label: LogLabel | null = null,
  err: Out = () => {},
): Promise<LogClassification> {
  const utf16 = await utf16Of(file);
  if (utf16) err(`${file}: a UTF-16 (${utf16}) log, read as such\n`);
  label ??= await labelOf(file, utf16);
  const lc = new LogClassifier(classifier, file, { role: label?.role ?? null, context: label?.context ?? '', firstLine: 1 + (label?.headerLines ?? 0) });
  let skip = label?.headerBytes ?? 0;
  for await (const chunk of utf16 ? utf16Chunks(file, utf16) : lineChunks(file)) {
    if (skip >= chunk.length) {
      skip -= chunk.length;
      continue;
    }
    lc.pushBytes(skip ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
  const { classification: c, metrics } = lc.result();
  const expected = label?.expected ?? undefined;
  if (!c)
    return {
      file,
      category: null,
      cause: null,
      fixability: null,
      description: null,
      strength: null,
      evidence: null,
      rule: null,
      findings: [],
      candidates: [],
      metrics,
      expected,
    };
  return {
    file,
    category: c.category,
    cause: c.cause,
    fixability: c.fixability,
    description: c.description,
    strength: c.strength,
    evidence: c.evidence ? { line: c.evidence.line, text: c.evidence.text } : null,
    rule: c.rule,
    findings: c.findings.map(f => ({ category: f.category, cause: f.cause, rule: f.rule, strength: f.strength, line: f.evidence?.line ?? null })),
    candidates: (c.candidates ?? []).map(e => ({ line: e.line, text: e.text })),
    metrics: {},
    expected,
    ...(c.learned
      ? { learned: { tokens: c.learned.tokens, guess: c.learned.guess ? { category: c.learned.guess.category, p: c.learned.guess.p } : null } }
      : {}),
  };
}

export async function classifyLogCommand(a: { files: string[]; json: boolean; rules?: string }, out: Out, err: Out): Promise<number> {
  const rules = a.rules ? loadUserRules('.', a.rules, err) : [];
  const classifier = new Classifier({ userRules: rules });
  const results: LogClassification[] = [];
  for (const f of a.files) {
    const kind = await logFileKind(f);
    if (kind !== 'file') throw new Error(`classify-log: ${f} ${kind}: not read (save the log to a file first)`);
    results.push(await classifyLogFile(f, rules, classifier, null, err));
  }
  for (const b of classifier.budgetReports)
    err(`rule ${b.rule} exceeded its time budget on ${b.file} (${b.elapsedMs} ms); user rules were stopped for that file\n`);
  if (a.json) {
    out(JSON.stringify(results, null, 2));
    return 0;
  }
  for (const r of results) {
    if (!r.category) {
      out(
        `${clean(r.file)}: success — ${Object.entries(r.metrics)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
      );
      continue;
    }
    const how = r.strength && r.strength !== 'none' ? ` (${r.strength}${r.rule ? ` ${clean(r.rule)}` : ''})` : '';
    out(
      `${clean(r.file)}: ${clean(r.category)}${r.cause ? `/${clean(r.cause)}` : ''}${how}${r.evidence ? ` at line ${r.evidence.line}: ${clean(r.evidence.text.slice(0, 160))}` : ''}`,
    );
    for (const f of r.findings.slice(1))
      out(
        `    also ${clean(f.category)}${f.cause ? `/${clean(f.cause)}` : ''} (${f.strength}${f.rule ? ` ${clean(f.rule)}` : ''})${f.line ? ` at line ${f.line}` : ''}`,
      );
    if (r.category === 'unclassified' && r.candidates.length) {
      out('    last error lines (select one in the editor and run "Create Rule from Selection"):');
      for (const e of r.candidates) out(`      line ${e.line}: ${clean(e.text.slice(0, 160))}`);
    }
  }
  return 0;
}

export async function reportCommand(a: AnalysisArgs & { format: 'md' | 'json'; out?: string }, out: Out, err: Out): Promise<number> {
  requireFolder(a.folder, 'report');
  const rules = loadUserRules(a.folder, a.rules, err);
  const an = await analyzeFolder(a.folder, {
    tieBand: a.tieBand,
    rules,
    primaryMetric: a.primaryMetric,
    cache: a.cache,
    allowFailedRequests: a.allowFailedRequests,
  });
  const report = buildReport(an.entries, a.folder, { tieBand: a.tieBand, includeIncomparable: a.includeIncomparable });
  const text = a.format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderMarkdown(report);
  if (a.out) {
    await fs.writeFile(a.out, text);
    err(`report written to ${a.out}\n`);
  } else out(text.trimEnd());
  return 0;
}
