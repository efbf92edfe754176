/**
 * An object keyed by data (categories, agents, metric names, commit ids): without a prototype, so
 * a key like `constructor`, `toString` or `__proto__` is an ordinary key, never Object's own.
 */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
