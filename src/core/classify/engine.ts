import type { Role, RunStatus } from '../model';
import { category, type Fixability, type Group } from './taxonomy';
import type { Rule, RuleSpec } from './ruleSchema';
import { BUILTIN_RULES } from './rules';
import { linearMatcher, nativeMatcher, type Match, type Matcher } from './matcher';
import { isChildProcessLine, isErrorForm, isNoise } from '../logs/lines';
import { requiredLiterals } from './literals';
import { LiteralScanner } from './literalScanner';
import { StructureReader, STRUCTURE_LITERALS } from './structure/reader';
import { decideStructure } from './structure/table';
import { NaiveBayes, type Guess, type NaiveBayesJson } from './learned/naiveBayes';
import { tokensOf } from './learned/tokens';
import BUILTIN_MODEL from './learned/model.generated.json';

export interface EvidenceSource {
  file: string;
  field: string | null;
}
export interface TextInput {
  source: EvidenceSource;
  text: string;
  scope: 'error' | 'output';
}

export interface ClassifyInput {
  role: Role | null;
  status: RunStatus;
  texts: TextInput[];
  /** `command: …\nmodel: …\nsubject: …` — what context rules look at. */
  context: string;
}

export interface Evidence {
  file: string;
  field: string | null;
  line: number;
  text: string;
}

/** One thing a run's texts show; a run keeps all of them, primary first (like Jenkins' Build Failure Analyzer). */
export interface Finding {
  category: string;
  cause: string | null;
  description: string;
  rule: string | null;
  /**
   * How it was reached: a root-cause signature; the failure's structure (exception type, error
   * code, exit status …); an inference from the command/model; a pipeline's generic string; the
   * run's recorded status; the learned fallback; a person's label; nothing.
   */
  strength: 'signature' | 'structure' | 'context' | 'generic' | 'status' | 'learned' | 'label' | 'none';
  evidence: Evidence | null;
  /** Unclassified only: the last error-form lines (oldest first), where a person starts reading. */
  candidates?: Evidence[];
}

/** The primary finding, flattened, plus every finding (the primary first). */
export interface Classification extends Finding {
  group: Group;
  fixability: Fixability;
  findings: Finding[];
  /** What limited the look at the run's texts (a log read in part, a log not read), each naming the file. */
  notes?: string[];
  /**
   * The learned stage's input and answer, where it was asked (nothing else explained the run, or
   * features were requested): re-asked without reading the texts again when the labels change.
   */
  learned?: { tokens: string[]; guess: Guess | null };
}

/** The learned stage answers at or above this probability; below, the run stays unclassified and says what it is most like. */
export const LEARNED_THRESHOLD = 0.9;
/** The model trained at build time on the labelled corpus (test/fixtures/failure-logs). */
export const builtinModel = (): NaiveBayes => NaiveBayes.fromJSON(BUILTIN_MODEL as NaiveBayesJson);

/**
 * Rules whose hit is a *secondary* cause when another signature exists: a patch that applied only
 * in part (failed hunks the runner skipped) does not explain a run that died of something else;
 * SGLang's "could not load any common_ops library" summarises the import errors listed after it.
 */
const SECONDARY_WHEN_OTHERS = new Set(['agent.patch-partial', 'install-failed.sgl-kernel']);
/** After the primary signature is known, this many more candidate lines are looked at for secondary findings. */
const SECONDARY_LINE_BUDGET = 20_000;
/** How many last error-form lines an unclassified run shows. */
const CANDIDATES = 5;

/**
 * Facts a log states that change what a finding means: the vLLM version, and whether CUDA graph
 * capture started and finished (a server that never became ready while capturing hung there).
 */
const VERSION_LINE = /(?:vLLM API server version|LLM engine \(v|vLLM version:?) ?v?(\d{1,3}\.\d{1,3}\.\d{1,3}[\w.+-]{0,40})/;
const CAPTURE_LINE = /Capturing CUDA graph shapes:\s{0,4}\d{1,3}%[^\n]{0,40}/;
const CAPTURE_DONE = /Graph capturing finished/;
const FACT_LITERALS = ['api server version', 'llm engine (v', 'vllm version', 'capturing cuda graph', 'graph capturing finished'];

/**
 * Refinements: a finding that means something more specific on some vLLM versions. vLLM 0.6.0–0.6.5
 * binds its API port twice (#8791), so "address already in use" there is that bug, not a busy port.
 */
const VERSION_REFINEMENTS: Array<{ rule: string; version: RegExp; category: string; description: (v: string) => string }> = [
  {
    rule: 'infra.port-in-use',
    version: /^0\.6\.[0-5](?!\d)/,
    category: 'version-bug',
    description: v => `vLLM ${v} binds its API port twice (#8791); use an offline benchmark or another version`,
  },
];

interface CompiledIndication {
  scope: Rule['indications'][number]['scope'];
  flags: string;
  m: Matcher;
  multiline: boolean;
  /** A built-in's required literals (case-folded): a line without any of them cannot match, so the pattern is not run. */
  lits: string[] | null;
  /** Their ids in the classifier's literal scanner. */
  litIds: number[] | null;
}
interface CompiledRule {
  rule: Rule;
  user: boolean;
  inds: CompiledIndication[];
}

interface Hit {
  rule: CompiledRule;
  match: Match;
  ind: CompiledIndication;
  source: EvidenceSource;
  line: number;
  lineText: string;
  errorForm: boolean;
  /** Written by a child process (engine core, worker, rank): nearer the cause than the parent's summary. */
  child: boolean;
  order: number;
}

export interface ClassifierOptions {
  userRules?: Rule[];
  /** The learned fallback (default: the built-in model); null turns it off. */
  learned?: NaiveBayes | null;
  learnedThreshold?: number;
  /** Attach the learned stage's tokens to every classification (for training and cross-validation). */
  features?: boolean;
  /** Measurement only (`rules test --stage`): answer with this stage alone, as if the ones before it found nothing. */
  only?: 'structure' | 'learned';
  /** Wall-clock budget for user rules on one input (default 2000 ms). */
  userRuleBudgetMs?: number;
}

export interface BudgetReport {
  rule: string;
  file: string;
  elapsedMs: number;
}

const MAX_EVIDENCE = 400;
/** Lines longer than this are matched in windows of WINDOW characters around their literals. */
const LONG_LINE = 16384;
const WINDOW = 4096;
/** User rules on long lines: windows of this size, overlapping so a match up to USER_OVERLAP long is never cut. */
const USER_WINDOW = 65536;
const USER_OVERLAP = 4096;
/** Multi-line patterns on large texts: blocks of this size. */
const MULTI_WINDOW = 1 << 20;
const MULTI_OVERLAP = 65536;

/** Window starts covering [0, length) with the given size and overlap. */
function slide(length: number, size: number, overlap: number): number[] {
  const out: number[] = [];
  for (let s = 0; ; s += size - overlap) {
    out.push(s);
    if (s + size >= length) break;
  }
  return out;
}

function evidenceText(line: string, at: number, len: number): string {
  const l = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (l.length <= MAX_EVIDENCE) return l;
  const start = Math.max(0, Math.min(at - 100, l.length - MAX_EVIDENCE));
  return l.slice(start, Math.max(start + Math.min(MAX_EVIDENCE, len + 200), start + 1));
}

function render(template: string, groups: Array<string | undefined>): string {
  return template.replace(/\{(\d)\}/g, (_, n) => (groups[Number(n) - 1] ?? '').trim().slice(0, 200)).trim();
}

/** A run's texts, scanned (opaque: see Classifier.scanTexts). */
export type TextScan = { readonly role: Role | null };
/** A context rule and its match on a run's command/model/subject. */
export type ContextHit = { readonly r: CompiledRule; readonly m: Match };

/**
 * A built-in rule as the schema reads it (its one default filled in). The schema itself is not run
 * at each start, a sixth of building a classifier in a fresh window: a unit test holds every
 * built-in rule to it (`builtinRule(s)` equals `RuleSchema.parse(s)`).
 */
export function builtinRule(s: RuleSpec): Rule {
  return { ...s, strength: s.strength ?? 'signature' } as Rule;
}

/**
 * The rules engine. Precedence: a root-cause *signature* beats a *context* inference, which beats
 * the pipelines' *generic* error strings; among signatures the earliest error-form line wins, then
 * the earliest other line. Echoed fix announcements, docker-pull chatter and progress bars are
 * never evidence.
 */
export class Classifier {
  private readonly rules: CompiledRule[];
  /** Literals every built-in line match must contain (case-folded); lines without one are skipped. */
  readonly literals: string[];
  /** 1 at the ids of FACT_LITERALS. */
  private readonly factIds: Uint8Array;
  // Built when first used: a log's own scan (logClassifier) needs neither, and each costs tens of ms.
  private scannerMade: LiteralScanner | null = null;
  private get scanner(): LiteralScanner {
    return (this.scannerMade ??= new LiteralScanner([this.literals]));
  }
  /** Rule literals (bit 1) and the structure reader's (bit 2), for whole texts. */
  private textScannerMade: LiteralScanner | null = null;
  private get textScanner(): LiteralScanner {
    return (this.textScannerMade ??= new LiteralScanner([this.literals, STRUCTURE_LITERALS]));
  }
  private readonly userBudgetMs: number;
  readonly budgetReports: BudgetReport[] = [];

  readonly learned: NaiveBayes | null;
  private readonly threshold: number;
  private readonly features: boolean;
  private readonly only: ClassifierOptions['only'];

  constructor(opts: ClassifierOptions = {}) {
    this.userBudgetMs = opts.userRuleBudgetMs ?? 2000;
    this.learned = opts.learned === undefined ? builtinModel() : opts.learned;
    this.threshold = opts.learnedThreshold ?? LEARNED_THRESHOLD;
    this.features = !!opts.features;
    this.only = opts.only;
    const builtin = BUILTIN_RULES.map(s => compileRule(builtinRule(s), false));
    const user = (opts.userRules ?? []).map(r => compileRule(r, true));
    this.rules = [...user, ...builtin]; // user rules win ties on the same line
    // The prefilter looks for the literals every match must contain (see literals.ts).
    const lits = new Set<string>();
    // Each line pattern's literals, as compileRule found them (lower case).
    for (const r of builtin)
      for (const ind of r.inds) {
        if (ind.multiline || ind.scope === 'context') continue;
        if (!ind.lits) throw new Error(`built-in rule ${r.rule.id}: pattern has no required literal: ${ind.m.source}`);
        for (const l of ind.lits) lits.add(l);
      }
    for (const l of FACT_LITERALS) lits.add(l);
    this.literals = [...lits];
    this.factIds = new Uint8Array(this.literals.length);
    for (const l of FACT_LITERALS) this.factIds[this.literals.indexOf(l)] = 1;
    const idOf = new Map(this.literals.map((l, i) => [l, i]));
    for (const r of builtin) for (const ind of r.inds) ind.litIds = ind.lits?.map(l => idOf.get(l)!) ?? null;
    this.found = new Uint32Array(this.literals.length);
    // Per literal, the built-in rules (their indices in this.rules) that have a line pattern needing it.
    this.rulesOf = this.literals.map(() => []);
    this.rules.forEach((r, ri) => {
      if (r.user) return;
      for (const ind of r.inds) for (const id of ind.litIds ?? []) if (this.rulesOf[id].at(-1) !== ri) this.rulesOf[id].push(ri);
    });
    // User rules get the same prefilter where their patterns allow it (thousands of rules then
    // cost one scan of each line); a rule with any indication without a literal runs on every line.
    const userLits = new Map<string, number>();
    const userRulesOf: number[][] = [];
    this.rules.forEach((r, ri) => {
      if (!r.user) return;
      const per = r.inds.filter(i => !i.multiline && i.scope !== 'context').map(i => userLiterals(i.m.source, i.flags));
      if (!per.length || per.some(l => !l)) {
        this.userAlways.push(ri);
        return;
      }
      for (const l of new Set(per.flat() as string[])) {
        let id = userLits.get(l);
        if (id === undefined) userLits.set(l, (id = userLits.size));
        (userRulesOf[id] ??= []).push(ri);
      }
    });
    this.userLiterals = [...userLits.keys()];
    this.userRulesOf = userRulesOf;
    this.userScanner = this.userLiterals.length ? new LiteralScanner([this.userLiterals]) : null;
    this.userFound = new Uint32Array(this.userLiterals.length);
  }
  /** User rules that run on every line (a pattern with no required literal), in rule order. */
  private readonly userAlways: number[] = [];
  private readonly userLiterals: string[];
  private readonly userRulesOf: number[][];
  private readonly userScanner: LiteralScanner | null;
  private readonly userFound: Uint32Array;
  private userStamp = 0;
  private readonly rulesOf: number[][];
  /** Scratch for literalsIn: found[id] === stamp when literal id is on the current line. */
  private readonly found: Uint32Array;
  private stamp = 0;

  get hasUserRules(): boolean {
    return this.rules.some(r => r.user);
  }

  classify(input: ClassifyInput): Classification {
    const scan = this.scanTexts(input);
    return this.conclude(scan, input, this.contextOf(scan, input));
  }

  /**
   * The first step of `classify`: the scan of a run's texts, which depends on its role, status and
   * texts only. Runs whose texts are the same (one error string in a thousand files) share it, and
   * each is concluded with its own context (`contextOf`, `conclude`).
   */
  scanTexts(input: ClassifyInput): TextScan {
    const state = new ScanState(input.role, this.userBudgetMs, this.budgetReports);
    let order = 0;
    for (const t of input.texts) {
      this.scanText(t.text, 1, t.source, t.scope, input.role, state, order);
      order += 1;
    }
    return state;
  }

  /** The context rule a run's command/model/subject matches, given its texts' scan (null when the texts name a root cause). */
  contextOf(scan: TextScan, input: Pick<ClassifyInput, 'context' | 'role'>): ContextHit | null {
    return this.infer(input.context, input.role, scan as ScanState);
  }

  /** What the context adds to a conclusion, as a key: runs with one texts' scan and one key are classified alike. */
  contextKey(hit: ContextHit | null): string {
    return hit ? `${hit.r.rule.id}\0${render(hit.r.rule.description, hit.m.groups)}` : '';
  }

  /** The classification of a run from its texts' scan and its context rule (the scan is not changed: it may serve other runs). */
  conclude(scan: TextScan, input: ClassifyInput, context: ContextHit | null): Classification {
    return this.decide(input, scan as ScanState, context);
  }

  /** Context rules look only at the command/model/subject, and only when the texts name no root cause. */
  private infer(context: string, role: Role | null, state: ScanState): ContextHit | null {
    if (state.hasSignature || !context) return null;
    for (const r of this.rules) {
      if (r.rule.strength !== 'context' || !appliesToRole(r, role)) continue;
      for (const ind of r.inds) {
        if (ind.scope !== 'context') continue;
        const m = ind.m.exec(context);
        if (m) return { r, m };
      }
    }
    return null;
  }

  /**
   * A scanner for one large text fed in pieces: `text(chunk)` for chunks of whole lines, or
   * `line(text, no)` for single candidate lines found by a caller's own literal scan.
   */
  stream(source: EvidenceSource, role: Role | null = null, firstLine = 1) {
    const state = new ScanState(role, this.userBudgetMs, this.budgetReports);
    let line = firstLine;
    return {
      /** True once the earliest error-form signature is known: later lines cannot change the result. */
      get settled() {
        return !state.wantsMore;
      },
      text: (chunk: string) => {
        if (state.wantsMore || this.hasUserRules) this.scanText(chunk, line, source, 'output', role, state, 0);
        for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) line++;
      },
      /** `ids`: the literals the caller's scan found on the line (group 0 of a scanner built on `literals`), when it has them. */
      line: (text: string, no: number, ids?: readonly number[]) => {
        if (state.wantsMore) this.evalLine(text, no, source, 'output', role, state, 0, false, ids);
      },
      /** A line that may state an error (the caller's cheap prefilter); the last few are kept for an unclassified end. */
      errorLine: (text: string, no: number) => state.remember(source, text, no),
      /** A line with one of STRUCTURE_LITERALS: read for tracebacks, error codes, statuses (bounded). */
      structureLine: (text: string, no: number) => state.structure.line(text, no, source),
      end: (status: RunStatus = 'failed', context = '') => {
        return this.decide({ role, status, texts: [], context }, state, this.infer(context, role, state));
      },
    };
  }

  private scanText(
    text: string,
    firstLine: number,
    source: EvidenceSource,
    scope: 'error' | 'output',
    role: Role | null,
    state: ScanState,
    order: number,
  ): void {
    // User rules (RE2, linear) look at every line, first, so they win ties on the same line.
    if (!state.userDisabled && this.rules.some(r => r.user && appliesToRole(r, role))) {
      if (this.userAlways.length) {
        let line = firstLine;
        for (let s = 0; s <= text.length && !state.userDisabled;) {
          const e = text.indexOf('\n', s);
          this.evalLine(text.slice(s, e === -1 ? text.length : e), line++, source, scope, role, state, order, true);
          if (e === -1) break;
          s = e + 1;
        }
      } else
        this.userScanner?.scanString(text, firstLine, (lineText, line) => {
          if (!state.userDisabled) this.evalLine(lineText, line, source, scope, role, state, order, true);
        });
    }
    // Built-in rules only on lines that contain one of their literals; the structure reader on its own.
    this.textScanner.scanString(text, firstLine, (lineText, line, mask, ids) => {
      if (mask & 1 && state.wantsMore) this.evalLine(lineText, line, source, scope, role, state, order, false, ids);
      if (mask & 2) state.structure.line(lineText, line, source);
    });
    this.multiline(text, firstLine, source, scope, role, state, order);
  }

  /**
   * Evaluates one line against the user rules or the built-in rules (the first rule that matches
   * wins the line). Built-ins look at a long line only in windows around its literals, so their
   * cost stays linear whatever the line length.
   */
  evalLine(
    lineText: string,
    lineNo: number,
    source: EvidenceSource,
    scope: 'error' | 'output',
    role: Role | null,
    state: ScanState,
    order: number,
    user = false,
    /** The line's literal ids as the caller's scan found them (ids past `literals` are other groups'). */
    lineIds?: readonly number[],
  ): void {
    if (!user) {
      state.seen();
      // The facts' patterns each need one of FACT_LITERALS: a line the scan found none of those on has none.
      if (lineText.length < 4096 && (!lineIds || lineIds.some(id => this.factIds[id] === 1))) state.facts(lineText, lineNo, source);
    }
    if (isNoise(lineText)) return;
    const errorForm = isErrorForm(lineText.length > LONG_LINE ? lineText.slice(0, LONG_LINE) : lineText);
    const long = lineText.length > LONG_LINE;
    // Built-ins look around their literals; user rules (any pattern) slide over the line in
    // overlapping windows, so their time budget is checked between bounded matches.
    const windows = long ? (user ? slide(lineText.length, USER_WINDOW, USER_OVERLAP) : this.windows(lineText)) : [0];
    for (const w of windows) {
      if (user && state.userDisabled) return;
      const view = long ? lineText.slice(w, w + (user ? USER_WINDOW : WINDOW)) : lineText;
      // Each built-in pattern runs only where one of its own literals is (the line passed the
      // scanner for some literal; most patterns have none of theirs here).
      const stamp = user ? 0 : (this.stamp = (this.stamp % 0xfffffffe) + 1);
      const ids: number[] = [];
      if (!user && lineIds && !long) {
        for (const id of lineIds)
          if (id < this.literals.length && this.found[id] !== stamp) {
            this.found[id] = stamp;
            ids.push(id);
          }
      } else if (!user) this.scanner.literalsIn(view, this.found, stamp, ids);
      const found = this.found;
      // Built-ins: only the rules one of the line's literals names, in rule order (precedence).
      let picked: number[] | null = null;
      if (!user) {
        const set = new Set<number>();
        for (const id of ids) for (const ri of this.rulesOf[id]) set.add(ri);
        picked = [...set].sort((a, b) => a - b);
      } else if (this.userScanner) {
        // User rules: those whose literals the window holds, and those that run everywhere, in rule order.
        const uids: number[] = [];
        // The window's scan for the user rules' literals is their cost too: on the budget.
        const t0 = Date.now();
        this.userStamp = (this.userStamp % 0xfffffffe) + 1;
        this.userScanner.literalsIn(view, this.userFound, this.userStamp, uids);
        const set = new Set<number>(this.userAlways);
        for (const id of uids) for (const ri of this.userRulesOf[id]) set.add(ri);
        picked = [...set].sort((a, b) => a - b);
        state.spendUser(Date.now() - t0);
      }
      for (const r of picked ? picked.map(ri => this.rules[ri]) : this.rules) {
        if (r.user !== user || r.rule.strength === 'context' || !appliesToRole(r, role)) continue;
        if (r.user && state.userDisabled) return;
        const t0 = r.user ? Date.now() : 0;
        let hit: Hit | null = null;
        for (const ind of r.inds) {
          if (ind.multiline || ind.scope === 'context' || (ind.scope !== 'any' && ind.scope !== scope)) continue;
          if (ind.litIds && !ind.litIds.some(id => found[id] === stamp)) continue;
          const m = ind.m.exec(view);
          if (m) {
            hit = { rule: r, match: m, ind, source, line: lineNo, lineText: view, errorForm, child: isChildProcessLine(view), order };
            break;
          }
        }
        if (r.user) state.chargeUser(r, source.file, Date.now() - t0);
        if (hit) {
          state.offer(hit);
          return;
        }
      }
    }
  }

  /** Start offsets of windows around the literal occurrences of a long line (at most 64). */
  private windows(line: string): number[] {
    const lower = line.toLowerCase();
    const starts = new Set<number>();
    for (const lit of this.literals) {
      for (let i = lower.indexOf(lit), k = 0; i !== -1 && k < 8; i = lower.indexOf(lit, i + lit.length), k++) starts.add(Math.max(0, i - WINDOW / 2));
    }
    return [...starts].sort((a, b) => a - b).slice(0, 64);
  }

  private multiline(
    text: string,
    firstLine: number,
    source: EvidenceSource,
    scope: 'error' | 'output',
    role: Role | null,
    state: ScanState,
    order: number,
  ): void {
    for (const r of this.rules) {
      if (!appliesToRole(r, role) || (r.user && state.userDisabled)) continue;
      for (const ind of r.inds) {
        if (!ind.multiline || (ind.scope !== 'any' && ind.scope !== scope)) continue;
        // Large texts in overlapping blocks, the budget checked between them.
        let m: Match | null = null;
        for (const w of text.length > MULTI_WINDOW ? slide(text.length, MULTI_WINDOW, MULTI_OVERLAP) : [0]) {
          if (r.user && state.userDisabled) break;
          const t0 = Date.now();
          const hit = ind.m.exec(w || text.length > MULTI_WINDOW ? text.slice(w, w + MULTI_WINDOW) : text);
          if (r.user) state.chargeUser(r, source.file, Date.now() - t0);
          if (hit) {
            m = { ...hit, index: hit.index + w };
            break;
          }
        }
        if (!m) continue;
        const start = text.lastIndexOf('\n', m.index - 1) + 1;
        let line = firstLine;
        for (let i = text.indexOf('\n'); i !== -1 && i < start; i = text.indexOf('\n', i + 1)) line++;
        const end = text.indexOf('\n', m.index);
        const lineText = text.slice(start, end === -1 ? text.length : end);
        state.offer({
          rule: r,
          match: { ...m, index: m.index - start },
          ind,
          source,
          line,
          lineText,
          errorForm: isErrorForm(lineText),
          child: isChildProcessLine(lineText),
          order,
        });
      }
    }
  }

  private decide(input: ClassifyInput, s: ScanState, context: ContextHit | null): Classification {
    const findings: Finding[] = [];
    const add = (f: Finding) => {
      if (!findings.some(x => x.category === f.category && x.cause === f.cause)) findings.push(f);
    };
    // Signatures: the earliest error-form line first, then other lines; partial patches last.
    const sigs = this.only ? [] : s.signatures();
    const main = sigs.filter(h => !SECONDARY_WHEN_OTHERS.has(h.rule.rule.id));
    const late = sigs.filter(h => SECONDARY_WHEN_OTHERS.has(h.rule.rule.id));
    for (const h of [...main, ...late]) add(findingOf(h, 'signature'));
    const refined = findings.length ? VERSION_REFINEMENTS.find(r => r.rule === findings[0].rule && s.vllmVersion && r.version.test(s.vllmVersion)) : undefined;
    if (refined)
      findings.unshift({
        category: refined.category,
        cause: null,
        description: refined.description(s.vllmVersion!),
        rule: 'version-bug.8791',
        strength: 'signature',
        evidence: findings[0].evidence,
      });
    // A server that never became ready while it was capturing CUDA graphs hung there.
    const generic = this.only ? null : s.generic;
    const top = findings[0] ?? (generic ? findingOf(generic, 'generic') : null);
    if (s.capture && top?.category === 'timeout' && (top.cause === 'server-never-ready' || top.rule === 'generic.timeout'))
      findings.unshift({
        category: 'server-startup-failed',
        cause: 'cuda-graph-timeout',
        description: `The server hung capturing CUDA graphs (last progress: ${s.capture.text.trim()}); try --enforce-eager or fewer capture sizes`,
        rule: 'server.cuda-graph',
        strength: 'signature',
        evidence: s.capture,
      });
    // Without a signature, the failure's structure: strong entries before the command's context
    // and the pipelines' generic strings, weak ones after them.
    const st = s.structure.result();
    const structure = findings.length || this.only === 'learned' ? null : decideStructure(st);
    const strong = structure?.all.filter(f => !f.weak) ?? [];
    for (const f of strong) add({ category: f.category, cause: f.cause, description: f.description, rule: f.id, strength: 'structure', evidence: f.evidence });
    if (context && !this.only) {
      const { r, m } = context;
      add(findingOfRule(r.rule, render(r.rule.description, m.groups), 'context', null));
    }
    if (generic) add(findingOf(generic, 'generic'));
    for (const f of structure?.all.filter(x => x.weak) ?? [])
      add({ category: f.category, cause: f.cause, description: f.description, rule: f.id, strength: 'structure', evidence: f.evidence });
    if (!findings.length && input.status === 'timeout' && !this.only)
      add({ category: 'timeout', cause: null, description: 'The run was recorded as timed out', rule: null, strength: 'status', evidence: null });
    let learned: Classification['learned'];
    if (!findings.length || this.features) {
      const candidates = s.recent.length ? s.recent : lastErrorLines(input.texts);
      const tokens = tokensOf(
        candidates.map(c => c.text),
        st,
      );
      learned = { tokens, guess: findings.length ? null : (this.learned?.predict(tokens) ?? null) };
      if (!findings.length) add(learnedFinding(candidates, learned.guess, this.threshold, this.learned?.examples ?? 0));
    }
    const p = findings[0];
    const c = category(p.category);
    const rule = p.rule ? this.rules.find(r => r.rule.id === p.rule)?.rule : undefined;
    return { ...p, group: c.group, fixability: rule?.fixability ?? c.fixability, findings, ...(learned ? { learned } : {}) };
  }
}

/**
 * Where nothing explained a run: the learned stage's answer at or above the threshold, else
 * unclassified, saying what the run is most like. Either way the last error lines stay.
 */
export function learnedFinding(candidates: Evidence[], guess: Guess | null, threshold: number, examples: number): Finding {
  const last = candidates.at(-1) ?? null;
  const lastLine = last ? `last error line: ${last.text}` : 'no error text was kept';
  const pct = (p: number) => p.toFixed(2);
  if (guess && guess.p >= threshold)
    return {
      category: guess.category,
      cause: null,
      description: `Most like “${category(guess.category).title}” (p = ${pct(guess.p)}, learned from ${examples} labelled logs); no rule or structure explains it — ${lastLine}`,
      rule: 'learned',
      strength: 'learned',
      evidence: last,
      candidates,
    };
  return {
    category: 'unclassified',
    cause: null,
    description: guess
      ? `Unclassified — most like “${category(guess.category).title}” (p = ${pct(guess.p)}); ${lastLine}`
      : last
        ? `No rule matched; ${lastLine}`
        : 'No rule matched and no error text was kept',
    rule: null,
    strength: 'none',
    evidence: last,
    candidates,
  };
}

/** For unclassified runs: the last lines that state an error (oldest first), to show the user where to look. */
function lastErrorLines(texts: TextInput[]): Evidence[] {
  const out: Evidence[] = [];
  for (let t = texts.length - 1; t >= 0 && out.length < CANDIDATES; t--) {
    const text = texts[t].text;
    let end = text.length;
    for (let lineNo = countLines(text); end >= 0 && out.length < CANDIDATES; lineNo--) {
      // (lastIndexOf treats a negative start as 0, which would find a leading newline forever)
      const start = end > 0 ? text.lastIndexOf('\n', end - 1) + 1 : 0;
      const l = text.slice(start, end);
      if (l.trim() && isErrorForm(l) && !isNoise(l))
        out.unshift({ file: texts[t].source.file, field: texts[t].source.field, line: lineNo, text: evidenceText(l, 0, l.length) });
      if (start === 0) break;
      end = start - 1;
    }
  }
  return out;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Required literals of a user pattern (RE2 syntax), or null when it may have none or uses syntax
 * the literal reader does not know (quoting, Unicode classes, inline flags): such a rule runs on
 * every line. Non-ASCII literals under `i` are not used: the scanner folds ASCII case only.
 */
function userLiterals(pattern: string, flags: string): string[] | null {
  if (/\\[QEpPCzAx]|\(\?[^:]/.test(pattern)) return null;
  const req = requiredLiterals(pattern);
  if (!req || req.some(l => !l.length)) return null;
  if (flags.includes('i') && req.some(l => /[^\x00-\x7f]/.test(l))) return null;
  return req.map(l => l.toLowerCase());
}

function appliesToRole(r: CompiledRule, role: Role | null): boolean {
  return !r.rule.roles || (role !== null && r.rule.roles.includes(role));
}

function compileRule(rule: Rule, user: boolean): CompiledRule {
  const make = user ? linearMatcher : nativeMatcher;
  return {
    rule,
    user,
    inds: rule.indications.map(i => ({
      scope: i.scope,
      flags: i.flags ?? '',
      multiline: !!i.multiline,
      m: make(i.pattern, i.flags ?? '', !!i.multiline),
      lits: user || i.multiline || i.scope === 'context' ? null : (requiredLiterals(i.pattern)?.map(l => l.toLowerCase()) ?? null),
      litIds: null,
    })),
  };
}

function findingOfRule(rule: Rule, description: string, strength: Finding['strength'], evidence: Evidence | null): Finding {
  return { category: rule.category, cause: rule.cause ?? null, description, rule: rule.id, strength, evidence };
}

function findingOf(h: Hit, strength: Finding['strength']): Finding {
  return findingOfRule(h.rule.rule, render(h.rule.rule.description, h.match.groups), h.rule.rule.strength === 'generic' ? 'generic' : strength, {
    file: h.source.file,
    field: h.source.field,
    line: h.line,
    text: evidenceText(h.lineText, h.match.index, h.match.length),
  });
}

class ScanState {
  /** Per category, the best signature hit: an error-form line before any other, then the earliest. */
  private readonly byCategory = new Map<string, Hit>();
  generic: Hit | null = null;
  vllmVersion: string | null = null;
  /** The last CUDA graph capture progress line, while capture has not finished. */
  capture: Evidence | null = null;
  /** Tracebacks, error codes, exit statuses … of the texts (bounded). */
  readonly structure = new StructureReader();

  facts(line: string, no: number, source: EvidenceSource): void {
    if (!this.vllmVersion) this.vllmVersion = VERSION_LINE.exec(line)?.[1] ?? null;
    const c = CAPTURE_LINE.exec(line);
    if (c) this.capture = { file: source.file, field: source.field, line: no, text: c[0] };
    else if (CAPTURE_DONE.test(line)) this.capture = null;
  }
  /** The last error-form lines seen by a streaming caller (oldest first). */
  readonly recent: Evidence[] = [];
  userDisabled = false;
  private userSpent = 0;
  private primarySettled = false;
  private afterSettled = 0;

  constructor(
    readonly role: Role | null,
    private readonly budget: number,
    private readonly reports: BudgetReport[],
  ) {}

  get hasSignature(): boolean {
    return this.byCategory.size > 0;
  }

  /** Counts a candidate line looked at once the primary is known (secondary findings are searched within a budget). */
  seen(): void {
    if (this.primarySettled) this.afterSettled++;
  }

  /** Whether later lines can still add a finding (bounded once the primary signature is known). */
  get wantsMore(): boolean {
    return !this.primarySettled || this.afterSettled < SECONDARY_LINE_BUDGET;
  }

  /** Signature hits, best first: error-form lines before others, then by text order and line. */
  signatures(): Hit[] {
    return [...this.byCategory.values()].sort((a, b) => Number(b.errorForm) - Number(a.errorForm) || a.order - b.order || a.line - b.line);
  }

  remember(source: EvidenceSource, text: string, line: number): void {
    if (!text.trim() || !isErrorForm(text) || isNoise(text)) return;
    this.recent.push({ file: source.file, field: source.field, line, text: evidenceText(text, 0, text.length) });
    if (this.recent.length > CANDIDATES) this.recent.shift();
  }

  offer(h: Hit): void {
    const better = (a: Hit | undefined | null) =>
      !a || (h.errorForm && !a.errorForm) || (h.errorForm === a.errorForm && (h.order < a.order || (h.order === a.order && h.line < a.line)));
    if (h.rule.rule.strength === 'generic') {
      // Among generic lines, a child process's own statement beats the parent's summary of it.
      const g = this.generic;
      if (!g || (h.child && !g.child) || (h.child === g.child && better(g))) this.generic = h;
      return;
    }
    const key = `${h.rule.rule.category}|${h.rule.rule.cause ?? ''}`;
    if (better(this.byCategory.get(key))) this.byCategory.set(key, h);
    if (h.errorForm && !SECONDARY_WHEN_OTHERS.has(h.rule.rule.id)) this.primarySettled = true;
  }

  /** Time the user rules cost before any one of them ran (their literals' scan): reported with the next rule charged. */
  spendUser(ms: number): void {
    this.userSpent += ms;
  }
  chargeUser(r: CompiledRule, file: string, ms: number): void {
    this.userSpent += ms;
    if (this.userSpent >= this.budget && !this.userDisabled) {
      this.userDisabled = true;
      this.reports.push({ rule: r.rule.id, file, elapsedMs: this.userSpent });
    }
  }
}
