import type { Classification } from '../core/classify';
import type { LazyLines } from '../platform/lazyLines';

/**
 * The classifications of a state read lazily: `get` and `has` parse the one asked for; anything
 * else (iteration, `set`, `delete`) reads them all first and is then a plain Map. The Commits tree
 * asks for the classifications of the commits it shows, never all 18 000 of a 10 000-commit state.
 */
export class LazyClassifications extends Map<string, Classification> {
  private lazy: { ids: Map<string, number>; values: LazyLines<Classification> } | null;

  constructor(ids: readonly string[], values: LazyLines<Classification>) {
    super();
    const at = new Map<string, number>();
    ids.forEach((id, i) => at.set(id, i));
    this.lazy = { ids: at, values };
  }

  private whole(): void {
    const lazy = this.lazy;
    if (!lazy) return;
    this.lazy = null;
    const values = lazy.values.all();
    for (const [id, i] of lazy.ids) super.set(id, values[i]);
  }

  override get(id: string): Classification | undefined {
    if (!this.lazy) return super.get(id);
    const i = this.lazy.ids.get(id);
    return i === undefined ? undefined : this.lazy.values.at(i);
  }
  override has(id: string): boolean {
    return this.lazy ? this.lazy.ids.has(id) : super.has(id);
  }
  override get size(): number {
    return this.lazy ? this.lazy.ids.size : super.size;
  }
  override set(id: string, c: Classification): this {
    this.whole();
    return super.set(id, c);
  }
  override delete(id: string): boolean {
    this.whole();
    return super.delete(id);
  }
  override clear(): void {
    this.lazy = null;
    super.clear();
  }
  override forEach(f: (c: Classification, id: string, map: Map<string, Classification>) => void, thisArg?: unknown): void {
    this.whole();
    super.forEach(f, thisArg);
  }
  override entries(): MapIterator<[string, Classification]> {
    this.whole();
    return super.entries();
  }
  override keys(): MapIterator<string> {
    this.whole();
    return super.keys();
  }
  override values(): MapIterator<Classification> {
    this.whole();
    return super.values();
  }
  override [Symbol.iterator](): MapIterator<[string, Classification]> {
    this.whole();
    return super[Symbol.iterator]();
  }
}
