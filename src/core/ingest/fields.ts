/** Reads a dotted field (`result.baseline_metrics.raw_output`) from a parsed result file. */
export function fieldText(doc: unknown, dotted: string): string | null {
  let v: unknown = doc;
  for (const k of dotted.split('.')) {
    if (!v || typeof v !== 'object') return null;
    v = (v as Record<string, unknown>)[k];
  }
  return typeof v === 'string' ? v : null;
}

/** The dotted path of the first field (top level or one level down) whose value is `value`. */
export function fieldHolding(doc: unknown, value: string): string | null {
  if (!doc || typeof doc !== 'object') return null;
  const top = doc as Record<string, unknown>;
  for (const [k, v] of Object.entries(top)) if (typeof v === 'string' && v.toLowerCase() === value) return k;
  for (const [k, v] of Object.entries(top)) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) if (typeof v2 === 'string' && v2.toLowerCase() === value) return `${k}.${k2}`;
  }
  return null;
}
