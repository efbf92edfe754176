/** A p-value as every front end shows it: three decimals, and `< 0.001` below that (never `0.000`, which reads as certainty). */
export function pValueText(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '—';
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}
