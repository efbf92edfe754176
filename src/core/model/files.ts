import { z } from 'zod';
import { SchemaIdSchema } from './enums';

/** Non-run files are recognised so they are never counted as runs. */
export const NON_RUN_KINDS = [
  'progress-log',
  'report',
  'export',
  'hf-records',
  'run-summary',
  'mapping',
  'dataset',
  'agent-run',
  'notes',
  'run-record',
  'manifest',
  'per-request',
  /** Anything else under `.bench-triage/` (campaigns, claims, labels, rules …): the tool's own, read by its own readers. */
  'tool-record',
  /** A rerun the host refused before it started: shown on the run, never an attempt of the role. */
  'refused-run',
] as const;
export const NonRunKindSchema = z.enum(NON_RUN_KINDS);
export type NonRunKind = z.infer<typeof NonRunKindSchema>;

export const FileRecordSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('run'), path: z.string(), schema: SchemaIdSchema, runs: z.number().int() }),
  z.object({ kind: z.literal('nonRun'), path: z.string(), what: NonRunKindSchema }),
  z.object({
    kind: z.literal('corrupt'),
    path: z.string(),
    error: z.string(),
    offset: z.number().int().nullable(),
    line: z.number().int().nullable(),
    column: z.number().int().nullable(),
  }),
  z.object({ kind: z.literal('unknown'), path: z.string(), reason: z.string() }),
  /** A result file of a tool that names no commit or role, and neither a manifest nor its path says: the reason gives the two fixes. */
  z.object({ kind: z.literal('unattributed'), path: z.string(), schema: SchemaIdSchema, runs: z.number().int(), reason: z.string() }),
  /** Listed, but not read on purpose (a link, a FIFO …): the reason says why. */
  z.object({ kind: z.literal('skipped'), path: z.string(), reason: z.string() }),
]);
export type FileRecord = z.infer<typeof FileRecordSchema>;
