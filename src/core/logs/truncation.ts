import type { Truncation } from '../model';

/**
 * Caps the ISO-Bench pipelines applied to stored output (research §4.7). Text whose length equals
 * a cap was almost certainly cut there; the side depends on the field that held it.
 */
export const KNOWN_CAPS = {
  head: [3000, 5000],
  tail: [10000, 8000, 5000, 2000, 1000],
} as const;

export function detectTruncation(text: string, side: 'head' | 'tail', caps: readonly number[] = KNOWN_CAPS[side]): Truncation | null {
  for (const cap of caps) if (text.length === cap) return { kind: side, cap };
  return null;
}
