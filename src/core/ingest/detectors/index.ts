import { z } from 'zod';
import type { NonRunKind, SchemaId } from '../../model';
import { isObj, type DetectContext, type Detector, type RunDraft } from './common';
import { nonRunByShape } from './nonRun';
import { S1, S8 } from './threeWay';
import { S9, S10 } from './oldWrapped';
import { S2, S3, S4, S6 } from './flat';
import { S5, S7 } from './nested';
import { BT1 } from './own';
import { BT2 } from './build';
import { STANDALONE } from './standalone';

/** Order matters: the more specific shapes first (S10/S9 before S1; S2 before S3/S6; the tools' own files last). */
export const DETECTORS: readonly Detector[] = [BT1, BT2, S10, S9, S1, S5, S7, S2, S3, S6, S4, S8, ...STANDALONE];

export type Detection = { kind: 'run'; schema: SchemaId; drafts: RunDraft[] } | { kind: 'nonRun'; what: NonRunKind } | { kind: 'unknown'; reason: string };

function describeIssue(schema: SchemaId, issue: { path: PropertyKey[]; message: string }): string {
  const field = issue.path.map(String).join('.') || '(top level)';
  return `looks like ${schema}, but field \`${field}\`: ${issue.message}`;
}

/** The top-level keys a loose object schema names (null for any other schema). */
const shapeKeys = new WeakMap<z.ZodType, string[] | null>();
function looseKeys(schema: z.ZodType): string[] | null {
  let keys = shapeKeys.get(schema);
  if (keys === undefined) {
    const loose = schema instanceof z.ZodObject && schema.def.catchall instanceof z.ZodUnknown;
    shapeKeys.set(schema, (keys = loose ? Object.keys((schema as z.ZodObject).shape) : null));
  }
  return keys;
}

/**
 * A loose schema passes any key it does not name, so it is given only the keys it names: the same
 * verdict and the same first issue, without copying the rest of a large document to check it.
 */
function checkShape(schema: z.ZodType, value: Record<string, unknown>) {
  const keys = looseKeys(schema);
  if (!keys) return schema.safeParse(value);
  const named: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(value, k)) named[k] = value[k];
  return schema.safeParse(named);
}

export function detect(value: unknown, ctx: DetectContext): Detection {
  const nonRun = nonRunByShape(value, ctx.path);
  if (nonRun) return { kind: 'nonRun', what: nonRun };
  if (!isObj(value))
    return {
      kind: 'unknown',
      reason: `top level is ${value === null ? 'null' : Array.isArray(value) ? `an array (${value.length} items)` : `a ${typeof value}`}, not an object`,
    };
  for (const d of DETECTORS) {
    if (!d.matches(value, ctx)) continue;
    const parsed = checkShape(d.schema, value);
    if (!parsed.success) return { kind: 'unknown', reason: describeIssue(d.id, parsed.error.issues[0]) };
    const drafts = d.normalise(value, ctx);
    if (drafts.length === 0)
      return { kind: 'unknown', reason: `looks like ${d.id}, but it ${STANDALONE.includes(d) ? 'holds no result' : 'names no commit id'}` };
    return { kind: 'run', schema: d.id, drafts };
  }
  const keys = Object.keys(value).slice(0, 8).join(', ');
  return { kind: 'unknown', reason: `no known result schema matches (keys: ${keys}${Object.keys(value).length > 8 ? ', …' : ''})` };
}

export type { DetectContext, RunDraft } from './common';
export { STANDALONE_IDS, aiperfRequest, aiperfSamples } from './standalone';
