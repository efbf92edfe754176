import { z } from 'zod';
import { parseJson } from '../ingest/json';
import { ROLES } from '../model';
import { maskSecretShapes } from '../logs/secretShapes';
import { category, isKnownCategory } from './taxonomy';
import type { Classification, Evidence } from './engine';
import type { Example } from './learned/naiveBayes';
import { tokensOf } from './learned/tokens';

/**
 * `.bench-triage/labels.json`: the categories people set on runs (*Set Category…*, `bench-triage
 * label`), each with the evidence lines it was set on. A label overrides its run's category, feeds
 * the learned stage, is a case of `rules test`, and is offered as a rule draft.
 */
export const LABELS_SCHEMA = 'bench-triage.labels/v1';
const MAX_LINES = 20;
const MAX_LINE = 2000;
/** A labels file beyond this is refused (a person labels hundreds, not millions). */
export const MAX_LABELS_BYTES = 8 * 1024 * 1024;

const EvidenceSchema = z.object({ file: z.string().max(4096), line: z.number().int().nonnegative(), text: z.string().max(MAX_LINE) });
export const LabelSchema = z.object({
  /** The run's id (`<result file>#<role>[@…]`): what the label overrides. */
  run: z.string().min(1).max(4096),
  commit: z.string().max(64),
  agent: z.string().max(200).nullable(),
  role: z.enum(ROLES),
  category: z.string().min(1).max(80),
  /** The category the tool had given, for the record. */
  was: z.string().max(80).nullable(),
  lines: z.array(EvidenceSchema).max(MAX_LINES),
  note: z.string().max(2000).optional(),
  at: z.string().max(40),
});
export type Label = z.infer<typeof LabelSchema>;
const FileSchema = z.object({ schema: z.literal(LABELS_SCHEMA), labels: z.array(z.unknown()) });

export interface LabelProblem {
  field: string;
  message: string;
}

/** Reads a labels file: a bad label is left out with a problem naming its field; the others load. */
export function parseLabels(text: string): { labels: Label[]; problems: LabelProblem[] } {
  if (text.length > MAX_LABELS_BYTES) return { labels: [], problems: [{ field: '', message: `larger than ${MAX_LABELS_BYTES / 1048576} MB: not read` }] };
  const parsed = parseJson(text);
  if (!parsed.ok) return { labels: [], problems: [{ field: '', message: `invalid JSON: ${parsed.message}` }] };
  const f = FileSchema.safeParse(parsed.value);
  if (!f.success) {
    const i = f.error.issues[0];
    return { labels: [], problems: [{ field: i.path.join('.'), message: `${i.message} (expected {"schema": "${LABELS_SCHEMA}", "labels": [ … ]})` }] };
  }
  const labels: Label[] = [];
  const problems: LabelProblem[] = [];
  f.data.labels.forEach((raw, i) => {
    const l = LabelSchema.safeParse(raw);
    if (!l.success) {
      for (const x of l.error.issues) problems.push({ field: ['labels', i, ...x.path].join('.'), message: x.message });
      return;
    }
    if (!isKnownCategory(l.data.category) && l.data.category !== 'unclassified') {
      problems.push({ field: `labels.${i}.category`, message: `"${l.data.category}" is not a category of the taxonomy` });
      return;
    }
    labels.push(l.data);
  });
  return { labels, problems };
}

/** The file's text with one label set (a later label of the same run replaces the earlier one). */
export function withLabel(labels: readonly Label[], label: Label): string {
  const clean: Label = { ...label, lines: label.lines.slice(-MAX_LINES).map(l => ({ ...l, text: maskSecretShapes(l.text).slice(0, MAX_LINE) })) };
  const next = [...labels.filter(l => l.run !== label.run), clean];
  return JSON.stringify({ schema: LABELS_SCHEMA, labels: next }, null, 2) + '\n';
}

/** The file's text without the label of a run (back to the tool's category). */
export function withoutLabel(labels: readonly Label[], run: string): string {
  return JSON.stringify({ schema: LABELS_SCHEMA, labels: labels.filter(l => l.run !== run) }, null, 2) + '\n';
}

/** The lines a label is set on: the run's candidates (unclassified) or its findings' evidence. */
export function labelLines(c: Classification | undefined): Evidence[] {
  if (!c) return [];
  const lines = c.candidates?.length ? c.candidates : c.findings.flatMap(f => (f.evidence ? [f.evidence] : []));
  return lines.slice(-MAX_LINES);
}

/** The learned stage's examples from labels: the same tokens a run's classification gives its lines. */
export function labelExamples(labels: readonly Label[]): Example[] {
  return labels.filter(l => l.category !== 'unclassified' && l.lines.length).map(l => ({ category: l.category, tokens: tokensOf(l.lines.map(x => x.text)) }));
}

/** Classifications with the labels applied: a labelled run takes its label as its primary finding. */
export function applyLabels(classifications: ReadonlyMap<string, Classification>, labels: readonly Label[]): Map<string, Classification> {
  const out = new Map(classifications);
  for (const l of labels) {
    const c = out.get(l.run);
    if (!c) continue;
    const def = category(l.category);
    const finding = {
      category: l.category,
      cause: null,
      description: `Set by hand${l.note ? `: ${l.note}` : ''} (the tool had said “${category(l.was ?? c.category).title}”)`,
      rule: null,
      strength: 'label' as const,
      evidence: c.evidence,
    };
    out.set(l.run, {
      ...c,
      ...finding,
      group: def.group,
      fixability: def.fixability,
      findings: [finding, ...c.findings.filter(f => f.category !== l.category)],
    });
  }
  return out;
}
