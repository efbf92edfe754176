// A patch ablation run as a campaign (issue 27): its variants' patch files and its record in the
// campaign's folder, its runs through the durable queue, its results read back for attribution.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { CampaignItem, CampaignPlan } from '../core/campaign/plan';
import { SAFE_ID } from '../core/campaign/records';
import { BenchmarkModeSchema } from '../core/model';
import { attribute, effect, type Attribution, type Effect, type VariantResult } from '../core/ablate/attribution';
import { ddmin, type DdminResult, type Outcome } from '../core/ablate/ddmin';
import { hunkLines, partsOf, subsetPatch, type HunkRef } from '../core/ablate/units';
import { MAX_PATCH_BYTES, splitPatch, type FilePatch } from '../core/patch';
import { chooseHeadline, metricDef } from '../core/metrics';
import { parseJson } from '../core/ingest/json';
import { writeJsonAtomic } from '../runner/atomicJson';
import { readRunRecord } from '../runner/recordRead';
import { readTextBounded } from '../platform/boundedRead';
import { CampaignQueue } from './campaigns';
import type { CommitAblation } from './ablation';

export const ABLATION_SCHEMA = 'bench-triage.ablation/v1';
export const ABLATION_FILE = 'ablation.json';

const AblationRecordSchema = z.object({
  schema: z.literal(ABLATION_SCHEMA),
  commit: z.string().max(200),
  agent: z.string().max(200).nullable(),
  patch: z.enum(['agent', 'human']),
  source: z.string().max(4096),
  mode: z.enum(['files', 'hunks']),
  benchmarkMode: BenchmarkModeSchema.nullable().optional(),
  design: z.enum(['leave-one-out', 'each-alone', 'minimise']),
  /** Subsets minimise may measure at most. */
  maxTests: z.number().int().min(0).max(1_000_000).nullable().optional(),
  repeats: z.number().int().min(1).max(100).optional(),
  units: z
    .array(
      z.object({
        id: z.string().regex(/^U[0-9]{1,6}$/),
        label: z.string().max(4096),
        path: z.string().max(4096),
        parts: z.array(z.object({ file: z.number().int().min(0), hunk: z.number().int().min(0) })).max(100_000),
        added: z.number().int().min(0),
        removed: z.number().int().min(0),
      }),
    )
    .max(100_000),
  merges: z.array(z.object({ into: z.string().max(16), from: z.array(z.string().max(16)).max(100_000), why: z.string().max(16_384) })).max(100_000),
  variants: z
    .array(
      z.object({
        id: z.string().regex(SAFE_ID),
        kind: z.enum(['baseline', 'full', 'without', 'alone', 'subset']),
        unit: z.string().max(16).nullable(),
        units: z.array(z.string().max(16)).max(100_000),
        label: z.string().max(8192),
      }),
    )
    .max(100_000),
});
export type AblationRecord = z.infer<typeof AblationRecordSchema>;

/** The folder-relative file of a variant's patch in campaign `id`. */
const variantFile = (id: string, variant: string) => `.bench-triage/campaigns/${id}/variants/${variant}.diff`;

export function newAblationId(commit: string, now = new Date()): string {
  return `ablate-${commit.slice(0, 8)}-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * Writes the variants' patches and the ablation's record, then creates the campaign: the baseline
 * runs as the baseline role, every other variant as the agent role with its subset of the patch,
 * repeats interleaved as the plan orders them.
 */
export async function createAblationCampaign(
  folder: string,
  a: CommitAblation,
  files: readonly FilePatch[],
  meta: { hosts: string[]; id?: string },
): Promise<CampaignQueue> {
  const id = meta.id ?? newAblationId(a.commit);
  const dir = CampaignQueue.dirOf(folder, id);
  await fs.mkdir(path.join(dir, 'variants'), { recursive: true });
  for (const v of a.plan.variants)
    if (v.kind !== 'baseline') await fs.writeFile(path.join(folder, variantFile(id, v.id)), subsetPatch(files, partsOf(a.units, v.units)));
  const record: AblationRecord = {
    schema: ABLATION_SCHEMA,
    commit: a.commit,
    agent: a.agent,
    patch: a.patch,
    source: a.source,
    mode: a.mode,
    benchmarkMode: a.benchmarkMode,
    design: a.plan.design,
    maxTests: a.plan.maxTests,
    repeats: a.plan.repeats,
    units: a.units,
    merges: a.merges,
    variants: a.plan.variants,
  };
  await writeJsonAtomic(path.join(dir, ABLATION_FILE), record);
  const byId = new Map(a.plan.variants.map(v => [v.id, v]));
  const items: CampaignItem[] = a.plan.runs.map(r => {
    const v = byId.get(r.variant)!;
    return {
      n: r.n,
      commit: a.commit,
      agent: a.agent,
      role: v.kind === 'baseline' ? 'baseline' : 'agent',
      repeat: r.repeat,
      estimateS: a.plan.estimateS,
      gpus: a.plan.gpus,
      variant: { id: v.id, units: v.units, patch: v.kind === 'baseline' ? null : variantFile(id, v.id) },
    };
  });
  const plan: CampaignPlan = { items, refusals: [], gpuHours: a.plan.gpuHours };
  return CampaignQueue.create(folder, plan, {
    select: `ablate ${a.plan.design} commit=${a.commit.slice(0, 12)}`,
    repeats: a.plan.repeats,
    hosts: meta.hosts,
    id,
  });
}

/**
 * The patch file a campaign item applies instead of the agent's own, or null (not a variant, or the
 * baseline). A path that leaves the folder's `.bench-triage/` (by its text or a link) is an error.
 */
export async function variantPatchOf(folder: string, item: CampaignItem): Promise<string | null> {
  if (!item.variant?.patch) return null;
  const own = path.join(await fs.realpath(folder), '.bench-triage');
  const file = path.resolve(folder, item.variant.patch);
  const real = await fs.realpath(file).catch(() => null);
  if (!real) throw new Error(`variant ${item.variant.id}: its patch ${item.variant.patch} is missing`);
  if (!real.startsWith(own + path.sep)) throw new Error(`variant ${item.variant.id}: ${item.variant.patch} leads outside ${own}`);
  return real;
}

/** A record of the campaign's folder read and checked against its schema: an error names the file and the line or field. */
async function readRecordFile<T>(file: string, schema: z.ZodType<T>, what: string): Promise<T> {
  const text = await readTextBounded(file, { maxBytes: 64 << 20, what });
  const j = parseJson(text);
  if (!j.ok) throw new Error(`${file}: line ${j.line}, column ${j.column}: ${j.message}`);
  const r = schema.safeParse(j.value);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${file}: field ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return r.data;
}

export async function readAblationRecord(dir: string): Promise<AblationRecord> {
  return readRecordFile(path.join(dir, ABLATION_FILE), AblationRecordSchema, 'the ablation record');
}

export interface AblationResults {
  record: AblationRecord;
  results: Map<string, VariantResult>;
  /** Runs not ended yet, per variant. */
  pending: number;
  attribution: Attribution | null;
  /** Why no attribution (no metric measured by the baseline and the full patch). */
  why: string | null;
  /** What minimise found, once it has ended (its record and patch beside the campaign's). */
  minimal: MinimalSubset | null;
}

/** The smallest subset minimise found: its units, its patch, and how it measured against the parent and the full patch. */
export interface MinimalSubset {
  units: string[];
  /** Folder-relative: `.bench-triage/campaigns/<id>/minimal.diff`. */
  patch: string;
  exhausted: boolean;
  tests: number;
  /** Against the parent, and against the full patch (null: the whole patch, or not measured). */
  vsBaseline: Effect | null;
  vsFull: Effect | null;
}

const MinimiseRecordSchema = z.object({
  subset: z.array(z.string().max(16)).max(100_000),
  exhausted: z.boolean(),
  tests: z.array(z.unknown()).max(1_000_000),
});

/** The minimise record of campaign folder `dir`, or null when minimise has not ended; a damaged one is an error naming its field. */
async function readMinimise(dir: string): Promise<z.infer<typeof MinimiseRecordSchema> | null> {
  return readRecordFile(path.join(dir, MINIMISE_FILE), MinimiseRecordSchema, 'the minimise record').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}

/** The minimal subset's patch text (the file minimise wrote in the campaign's own folder), bounded. */
export async function minimalPatchText(folder: string, id: string): Promise<string> {
  return readTextBounded(path.join(CampaignQueue.dirOf(folder, id), 'minimal.diff'), { maxBytes: MAX_PATCH_BYTES, what: 'the minimal patch' });
}

/** The ablation campaign `id`'s runs read back, grouped by variant, and attributed on `metric` (default: the headline metric). */
export async function ablationResults(folder: string, id: string, opts: { metric?: string; band?: number } = {}): Promise<AblationResults> {
  const q = await CampaignQueue.load(folder, id);
  const record = await readAblationRecord(q.dir);
  const results = new Map<string, VariantResult>(record.variants.map(v => [v.id, { values: [], broken: [] }]));
  const measured = new Map<string, Map<string, number[]>>();
  let pending = 0;
  for (const item of q.record.items) {
    const v = item.variant?.id;
    if (!v || !results.has(v)) continue;
    const ir = await q.item(item.n);
    if (ir.state === 'queued' || ir.state === 'running' || !ir.resultDir) {
      pending += ir.state === 'queued' || ir.state === 'running' ? 1 : 0;
      // Refused before it started (a setting, a host): broken too, with the campaign's reason.
      if (ir.state === 'failed' && ir.error) results.get(v)!.broken.push(firstLine(ir.error));
      continue;
    }
    const rr = await readRunRecord(path.join(folder, ir.resultDir));
    if (!rr.ok) continue;
    const run = rr.record;
    if (run.status === 'succeeded') {
      const m = measured.get(v) ?? new Map<string, number[]>();
      for (const [k, x] of Object.entries(run.metrics)) if (Number.isFinite(x)) m.set(k, [...(m.get(k) ?? []), x]);
      measured.set(v, m);
    } else if (run.status === 'failed' || run.status === 'timeout')
      results.get(v)!.broken.push((await exceptionOf(path.join(folder, ir.resultDir))) ?? (firstLine(run.error) || run.status));
  }
  const mini = await readMinimise(q.dir);
  const both = [...(measured.get('baseline')?.keys() ?? [])].filter(k => measured.get('full')?.has(k));
  const metric = opts.metric ?? chooseHeadline(both, record.benchmarkMode ?? null)?.primary ?? null;
  const def = metric ? metricDef(metric) : null;
  if (metric) for (const [v, m] of measured) results.get(v)!.values.push(...(m.get(metric) ?? []));
  if (!metric || !def || def.kind !== 'metric' || def.direction === 'none')
    return {
      record,
      results,
      pending,
      attribution: null,
      why: metric
        ? `${metric} is not a metric with a better direction`
        : (brokenWhy(results) ?? 'the baseline and the full patch have no metric in common yet'),
      minimal: mini && minimalOf(q.record.id, mini, record.units.length, null, results),
    };
  const attribution = attribute(record.units, record.variants, results, {
    metric,
    direction: def.direction,
    band: opts.band ?? 2,
    unitText: await unitTexts(q.dir, record),
  });
  return {
    record,
    results,
    pending,
    attribution,
    why: null,
    minimal: mini && minimalOf(q.record.id, mini, record.units.length, { direction: def.direction, band: opts.band ?? 2 }, results),
  };
}

/** When nothing measured and runs broke: how many, and the first reason. */
function brokenWhy(results: ReadonlyMap<string, VariantResult>): string | null {
  const all = [...results.values()];
  const broken = all.flatMap(r => r.broken);
  if (!broken.length || all.some(r => r.values.length)) return null;
  return `none of its runs measured anything: ${broken.length} broke, the first with "${broken[0]}"`;
}

function minimalOf(
  id: string,
  m: z.infer<typeof MinimiseRecordSchema>,
  units: number,
  judged: { direction: 'lower' | 'higher'; band: number } | null,
  results: ReadonlyMap<string, VariantResult>,
): MinimalSubset {
  const whole = m.subset.length === units;
  const own = whole ? results.get('full') : results.get(subsetVariantId(m.subset));
  const vs = (ref: string) => (judged && own ? effect(results.get(ref)?.values ?? [], own.values, judged.direction, judged.band) : null);
  return {
    units: m.subset,
    patch: `.bench-triage/campaigns/${id}/minimal.diff`,
    exhausted: m.exhausted,
    tests: m.tests.length,
    vsBaseline: vs('baseline'),
    vsFull: whole ? null : vs('full'),
  };
}

/** The last exception a failed run's server or benchmark printed (`ImportError: cannot import name …`), from the end of its logs. */
async function exceptionOf(runDir: string): Promise<string | null> {
  for (const f of ['server.stderr.log', 'benchmark.stderr.log', 'server.stdout.log']) {
    const fh = await fs.open(path.join(runDir, 'logs', f), 'r').catch(() => null);
    if (!fh) continue;
    try {
      const { size } = await fh.stat();
      const n = Math.min(size, 64 * 1024);
      const buf = Buffer.alloc(n);
      await fh.read(buf, 0, n, size - n);
      const line = buf
        .toString('utf8')
        .split('\n')
        .reverse()
        .find(l => /^[A-Za-z_][\w.]*(Error|Exception)\b.*:/.test(l.trim()));
      if (line) return firstLine(line.trim());
    } finally {
      await fh.close();
    }
  }
  return null;
}

/**
 * Where each hunk of the source patch (`file:hunk`) is in the full patch the campaign wrote: the
 * full patch holds every unit's hunks in patch order, its files the units' files renumbered.
 */
function inFullPatch(record: AblationRecord, files: readonly FilePatch[]): Map<string, HunkRef> {
  const order = record.units.flatMap(u => u.parts).sort((a, b) => a.file - b.file || a.hunk - b.hunk);
  const flat = files.flatMap((f, file) => f.patch.hunks.map((_, hunk) => ({ file, hunk })));
  return new Map(order.flatMap((p, i) => (flat[i] ? [[`${p.file}:${p.hunk}`, flat[i]] as const] : [])));
}

/** The lines of a unit's first hunk (0-based, its `@@` header to its last line) in a patch text. */
function hunkSpan(text: string, ref: HunkRef): { line: number; end: number } | null {
  const at = hunkLines(text).find(h => h.file === ref.file && h.hunk === ref.hunk);
  if (!at) return null;
  const lines = text.split('\n');
  let end = at.line;
  while (end + 1 < lines.length && /^[ +\-\\]/.test(lines[end + 1]) && !(lines[end + 1].startsWith('--- ') && lines[end + 2]?.startsWith('+++ '))) end++;
  return { line: at.line, end };
}

/**
 * Where a unit's first hunk is, to show it: in the agent's own patch file when the ablation's
 * source is a file of the folder (its lenses are there), else in the campaign's full patch.
 */
export async function unitHunk(folder: string, id: string, unit: string): Promise<{ file: string; line: number; end: number } | null> {
  const dir = CampaignQueue.dirOf(folder, id);
  const record = await readAblationRecord(dir);
  const u = record.units.find(x => x.id === unit);
  if (!u?.parts.length) return null;
  const first = [...u.parts].sort((a, b) => a.file - b.file || a.hunk - b.hunk)[0];
  if (record.patch === 'agent') {
    const root = await fs.realpath(folder);
    const own = await fs.realpath(path.resolve(folder, record.source)).catch(() => null);
    // The record names the file; only one inside the folder is opened.
    if (own && own.startsWith(root + path.sep)) {
      const text = await readTextBounded(own, { maxBytes: MAX_PATCH_BYTES, what: 'the agent patch' }).catch(() => null);
      const span = text === null ? null : hunkSpan(text, first);
      if (span) return { file: own, ...span };
    }
  }
  const fullFile = path.join(dir, 'variants', 'full.diff');
  const text = await readTextBounded(fullFile, { maxBytes: MAX_PATCH_BYTES, what: 'the full patch' });
  const ref = inFullPatch(record, splitPatch(text)).get(`${first.file}:${first.hunk}`);
  const span = ref ? hunkSpan(text, ref) : null;
  return span && { file: fullFile, ...span };
}

/** Each unit's added lines, read back from the full patch the campaign wrote. */
async function unitTexts(dir: string, record: AblationRecord): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const text = await readTextBounded(path.join(dir, 'variants', 'full.diff'), { maxBytes: MAX_PATCH_BYTES, what: 'the full patch' }).catch(() => null);
  if (!text) return out;
  let files: FilePatch[];
  try {
    files = splitPatch(text);
  } catch {
    return out;
  }
  const where = inFullPatch(record, files);
  const at = new Map([...where].map(([k, r]) => [k, files[r.file].patch.hunks[r.hunk]]));
  for (const u of record.units)
    out.set(
      u.id,
      u.parts
        .flatMap(p => at.get(`${p.file}:${p.hunk}`)?.lines ?? [])
        .filter(l => l.startsWith('+'))
        .join('\n'),
    );
  return out;
}

function firstLine(s: string | null): string {
  const l = (s ?? '').split('\n').find(x => x.trim()) ?? '';
  return l.length > 200 ? l.slice(0, 199) + '…' : l;
}

export const MINIMISE_FILE = 'minimise.json';

/** A subset's variant id: its units when short, else a digest of them (ids become file names). */
export function subsetVariantId(units: readonly string[]): string {
  const plain = `subset-${units.join('-')}`;
  return plain.length <= 60 ? plain : `subset-${createHash('sha256').update(units.join(',')).digest('hex').slice(0, 16)}`;
}

export interface MinimiseOutcome {
  result: DdminResult;
  /** The smallest subset's patch, written beside the campaign's records (folder-relative). */
  patch: string;
}

/**
 * The minimise design: ddmin over the units, each subset it asks for a variant of `repeats` runs
 * added to the campaign and run through `drive` (the queue, so a cancel or a reload loses nothing).
 * A subset keeps the effect when it is not worse than the full patch by the noise-aware verdict;
 * one whose runs all broke does not. After a resume, subsets already measured answer from their runs.
 */
export async function runMinimise(
  folder: string,
  q: CampaignQueue,
  drive: () => Promise<{ cancelled: number }>,
  opts: { maxTests: number; repeats: number; band?: number; metric?: string; signal?: AbortSignal },
): Promise<MinimiseOutcome> {
  const record = await readAblationRecord(q.dir);
  const fullText = await readTextBounded(path.join(q.dir, 'variants', 'full.diff'), { maxBytes: MAX_PATCH_BYTES, what: 'the full patch' });
  const files = splitPatch(fullText);
  const renumbered = inFullPatch(record, files);
  const units = record.units.map(u => ({ ...u, parts: u.parts.map(p => renumbered.get(`${p.file}:${p.hunk}`)!) }));
  const template = q.record.items.find(i => i.variant?.id === 'full')!;
  await drive(); // the baseline and the full patch first (or what a resumed campaign has left)
  const measure = async (subset: string[]): Promise<Outcome> => {
    if (opts.signal?.aborted) throw new Error('cancelled');
    const id = subsetVariantId(subset);
    if (!record.variants.some(v => v.id === id)) {
      const file = variantFile(q.record.id, id);
      await fs.writeFile(path.join(folder, file), subsetPatch(files, partsOf(units, subset)));
      record.variants.push({ id, kind: 'subset', unit: null, units: subset, label: `subset ${subset.join(', ')}` });
      await writeJsonAtomic(path.join(q.dir, ABLATION_FILE), record);
      let n = q.record.items.length;
      await q.append(Array.from({ length: opts.repeats }, (_, r) => ({ ...template, n: ++n, repeat: r + 1, variant: { id, units: subset, patch: file } })));
    }
    const s = await drive();
    if (s.cancelled || opts.signal?.aborted) throw new Error('cancelled');
    const r = await ablationResults(folder, q.record.id, { metric: opts.metric, band: opts.band });
    const mine = r.results.get(id);
    if (!mine?.values.length) return 'broken';
    const def = r.attribution ? metricDef(r.attribution.metric) : null;
    const e =
      def && def.kind === 'metric' && def.direction !== 'none' ? effect(r.results.get('full')!.values, mine.values, def.direction, opts.band ?? 2) : null;
    return e && e.verdict !== 'loss' ? 'keeps' : 'loses';
  };
  const result = await ddmin(
    record.units.map(u => u.id),
    measure,
    opts.maxTests,
  );
  const patch = `.bench-triage/campaigns/${q.record.id}/minimal.diff`;
  await fs.writeFile(path.join(folder, patch), subsetPatch(files, partsOf(units, result.subset)));
  await writeJsonAtomic(path.join(q.dir, MINIMISE_FILE), { subset: result.subset, exhausted: result.exhausted, tests: result.tests, patch });
  return { result, patch };
}

/** The folder's ablation campaigns of `commit` (and of the patch at `source`, when given), newest first. */
export async function ablationsOf(folder: string, commit: string, source?: string): Promise<string[]> {
  const out: string[] = [];
  for (const id of await CampaignQueue.list(folder)) {
    if (!id.startsWith('ablate-')) continue;
    const r = await readAblationRecord(CampaignQueue.dirOf(folder, id)).catch(() => null);
    if (r && r.commit === commit && (source === undefined || r.source === source)) out.push(id);
  }
  return out;
}
