import type { LiveRun } from './runs';

const span = (s: number) => (s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`);
const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) || null : null);

/**
 * How long a run waited for the host and how long it ran, apart (a run queued behind others for
 * ten minutes did not take ten minutes): from its record's created, started and ended times.
 */
export function timing(r: LiveRun, now = Date.now()): { queued: string | null; ran: string | null; text: string } {
  const created = at(r.record.createdAt),
    started = at(r.record.startedAt),
    ended = at(r.record.endedAt) ?? r.endedMs;
  const secs = (a: number | null, b: number | null) => (a !== null && b !== null ? Math.max(0, Math.round((b - a) / 1000)) : null);
  const q = secs(created, started ?? (ended === null && !r.fromDisk ? now : ended));
  const ran = started !== null ? secs(started, ended ?? (r.fromDisk ? null : now)) : null;
  const queued = q !== null && q >= 1 ? span(q) : null;
  const ranText = ran !== null ? span(ran) : null;
  return { queued, ran: ranText, text: [ranText ? `ran ${ranText}` : '', queued ? `waited ${queued}` : ''].filter(Boolean).join(' · ') || 'did not start' };
}
