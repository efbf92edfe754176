/**
 * One format for every time shown ("When" columns, the Runs view): `YYYY-MM-DD HH:MM`, in UTC
 * when the source states a zone (the runner's ISO times), as written when it does not (ISO-Bench's
 * naive `2026-01-18 15:16:00`), with ` UTC` only on the former. Anything else is shown as given.
 */
export function formatWhen(raw: string | null | undefined): string {
  if (!raw) return '';
  const s = raw.trim();
  const naive = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(s);
  if (naive) return `${naive[1]}-${naive[2]}-${naive[3]} ${naive[4]}:${naive[5]}`;
  if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/.test(s)) {
    const t = Date.parse(s.replace(' ', 'T'));
    if (Number.isFinite(t)) return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
  const compact = /^(\d{4})(\d{2})(\d{2})[-_T](\d{2})(\d{2})(\d{2})?$/.exec(s); // 20260110-120000, run ids
  if (compact) return `${compact[1]}-${compact[2]}-${compact[3]} ${compact[4]}:${compact[5]}`;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (date) return s;
  return s.length > 40 ? s.slice(0, 39) + '…' : s;
}
