/**
 * Commit ids appear as 7, 8, 12 and 40 hex characters. The index learns every full hash it is
 * shown and resolves prefixes to it when the prefix is unambiguous.
 */
const HEX = /^[0-9a-f]+$/;
export const isHex = (s: unknown, min = 7): s is string => typeof s === 'string' && s.length >= min && s.length <= 40 && HEX.test(s);
export const isFullHash = (s: unknown): s is string => typeof s === 'string' && s.length === 40 && HEX.test(s);

export function normaliseHash(s: unknown): string | null {
  if (typeof s !== 'string') return null;
  const t = s.trim().toLowerCase();
  return isHex(t) ? t : null;
}

export class CommitIndex {
  private readonly full = new Set<string>();
  private sorted: string[] | null = null;

  add(hash: unknown): void {
    const h = normaliseHash(hash);
    if (h && h.length === 40 && !this.full.has(h)) {
      this.full.add(h);
      this.sorted = null;
    }
  }

  get size(): number {
    return this.full.size;
  }

  /** The full hashes a prefix matches (at most `max`): more than one means it can't be attributed. */
  matches(id: string, max = 3): string[] {
    const p = id.toLowerCase();
    if (p.length === 40 || !isHex(p)) return [];
    const arr = this.sortedHashes();
    const out: string[] = [];
    for (let i = lowerBound(arr, p); i < arr.length && arr[i].startsWith(p) && out.length < max; i++) out.push(arr[i]);
    return out;
  }

  /** The 40-hex hash for a prefix when exactly one is known, else the prefix itself. */
  resolve(id: string): string {
    const p = id.toLowerCase();
    if (p.length === 40 || !isHex(p)) return p;
    const both = this.matches(p, 2);
    return both.length === 1 ? both[0] : p;
  }

  private sortedHashes(): string[] {
    return (this.sorted ??= [...this.full].sort());
  }
}

/** The first index whose value is not below `p` (binary search over sorted strings). */
function lowerBound(arr: readonly string[], p: string): number {
  let lo = 0,
    hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] < p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
