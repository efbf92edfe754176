import { z } from 'zod';
import { ROLES } from '../model';
import { parseJson } from '../ingest/json';

/**
 * The campaign queue's own records, read back like any other input: a record edited by hand, cut
 * by a full disk or planted by someone else is a finding naming the file and the field, never a
 * crash, a path outside the folder or a run started twice.
 */
export const CAMPAIGN_SCHEMA = 'bench-triage.campaign/v1';
export const CAMPAIGN_ITEM_SCHEMA = 'bench-triage.campaign-run/v1';

/** Campaign ids and run ids become folder names: no separators, no dots first. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/;
/** Item numbers become file names (`runs/<n>.json`): a positive integer and nothing else. */
const ItemNumber = z.number().int().min(1).max(1_000_000);
const Iso = z.string().max(64);
const Text = (max: number) => z.string().max(max);
/** A folder under the campaign's folder, relative, without `..`, absolute parts or odd characters. */
export const RelativeDir = z
  .string()
  .max(1024)
  .refine(s => s.length > 0 && !s.startsWith('/') && !/^[A-Za-z]:/.test(s) && !s.split(/[\\/]/).some(p => p === '..' || p === '') && !/[\0-\x1f]/.test(s), {
    message: 'is not a folder inside the campaign’s folder',
  });

export const CampaignItemSchema = z.object({
  n: ItemNumber,
  kind: z.literal('build').optional(),
  commit: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'is not a commit id'),
  agent: Text(200).nullable(),
  role: z.enum(ROLES),
  repeat: z.number().int().min(1).max(10_000),
  estimateS: z
    .number()
    .finite()
    .min(0)
    .max(30 * 86_400),
  gpus: z.number().int().min(0).max(1024),
  /** A patch ablation's variant: the units it applies, from a patch file the campaign wrote under `.bench-triage/` (none: the parent). */
  variant: z
    .object({
      id: z.string().regex(SAFE_ID, 'is not a variant id'),
      units: z.array(z.string().regex(/^U[0-9]{1,6}$/, 'is not a unit id')).max(100_000),
      patch: RelativeDir.refine(s => s.startsWith('.bench-triage/') && s.endsWith('.diff'), {
        message: 'is not a patch the tool wrote under .bench-triage/',
      }).nullable(),
    })
    .optional(),
});

export const CampaignRecordSchema = z.object({
  schema: z.literal(CAMPAIGN_SCHEMA),
  id: z.string().regex(SAFE_ID, 'is not a campaign id'),
  createdAt: Iso,
  select: Text(4096),
  repeats: z.number().int().min(1).max(10_000),
  hosts: z.array(Text(2048)).max(10_000),
  gpuHours: z.number().finite().min(0),
  refusals: z.array(z.object({ commit: Text(200), role: z.enum(ROLES).nullable(), reason: Text(4096) })).max(100_000),
  items: z.array(CampaignItemSchema).max(100_000),
});

export const ITEM_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

export const ItemRecordSchema = z.object({
  schema: z.literal(CAMPAIGN_ITEM_SCHEMA),
  n: ItemNumber,
  state: z.enum(ITEM_STATES),
  runId: z.string().regex(SAFE_ID, 'is not a run id').nullable(),
  resultDir: RelativeDir.nullable(),
  host: Text(2048).nullable(),
  runStatus: Text(64).nullable(),
  error: Text(16_384).nullable(),
  startedAt: Iso.nullable(),
  endedAt: Iso.nullable(),
  /** Attempts lost with their engine or node (`interrupted`), each run again under a new id; their folders stay. */
  earlier: z
    .array(z.object({ runId: z.string().regex(SAFE_ID, 'is not a run id'), resultDir: RelativeDir, error: Text(16_384).nullable() }))
    .max(100)
    .optional(),
});

export type CampaignRecord = z.infer<typeof CampaignRecordSchema>;
export type ItemRecord = z.infer<typeof ItemRecordSchema>;

export type RecordRead<T> = { ok: true; value: T } | { ok: false; finding: string };

/** The first problem of a record, naming the field as a dotted path (`items.3.n`). */
function firstIssue(file: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const i = issues[0];
  const field = i.path.map(String).join('.') || '(top level)';
  // zod says "received undefined" for a field that is not there.
  const message = /, received undefined$/.test(i.message)
    ? `is missing (${i.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '')})`
    : i.message;
  return `${file}: field ${field}: ${message}`;
}

export function parseRecord<T>(schema: z.ZodType<T>, text: string, file: string): RecordRead<T> {
  const parsed = parseJson(text, { rejectDuplicateKeys: true });
  if (!parsed.ok) return { ok: false, finding: `${file}: not JSON (${parsed.message})` };
  const r = schema.safeParse(parsed.value);
  return r.success ? { ok: true, value: r.data } : { ok: false, finding: firstIssue(file, r.error.issues) };
}

/** `campaign.json`, with its items numbered 1…N in order (a queue relies on it) and no two alike. */
export function parseCampaignRecord(text: string, file: string): RecordRead<CampaignRecord> {
  const r = parseRecord(CampaignRecordSchema, text, file);
  if (!r.ok) return r;
  const bad = r.value.items.findIndex((it, k) => it.n !== k + 1);
  if (bad >= 0) return { ok: false, finding: `${file}: field items.${bad}.n: is ${r.value.items[bad].n}, expected ${bad + 1} (items are numbered in order)` };
  return r;
}

export function parseItemRecord(text: string, file: string, n: number): RecordRead<ItemRecord> {
  const r = parseRecord(ItemRecordSchema, text, file);
  if (r.ok && r.value.n !== n) return { ok: false, finding: `${file}: field n: is ${r.value.n}, expected ${n}` };
  return r;
}
