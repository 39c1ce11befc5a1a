/**
 * A map that reads as `new Map(base)` with some entries set and deleted, without copying
 * `base`: a change's world is one or two docs away from the world before it, and a check
 * proves one link fix at a time (copying 40,000 texts' map per fix made the proofs of a
 * large corpus take minutes and gigabytes). Iteration is in `Map` order: the base's keys in
 * place, then the keys added (or deleted and set again) in the order they were set.
 */
export class Overlay<K, V> implements ReadonlyMap<K, V> {
  private readonly changed = new Map<K, V>();
  private readonly added = new Map<K, V>();
  private readonly deleted = new Set<K>();

  constructor(private readonly base: ReadonlyMap<K, V>) {}

  get size(): number {
    // Only keys of the base are ever in `deleted`; one set again is in `added` too.
    return this.base.size - this.deleted.size + this.added.size;
  }

  get(key: K): V | undefined {
    if (this.added.has(key)) return this.added.get(key);
    if (this.deleted.has(key)) return undefined;
    return this.changed.has(key) ? this.changed.get(key) : this.base.get(key);
  }

  has(key: K): boolean {
    return this.added.has(key) || (!this.deleted.has(key) && this.base.has(key));
  }

  set(key: K, value: V): this {
    if (!this.added.has(key) && !this.deleted.has(key) && this.base.has(key)) this.changed.set(key, value);
    else this.added.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const had = this.has(key);
    this.added.delete(key);
    this.changed.delete(key);
    if (this.base.has(key)) this.deleted.add(key);
    return had;
  }

  *entries(): MapIterator<[K, V]> {
    for (const [key, value] of this.base)
      if (!this.deleted.has(key)) yield [key, this.changed.has(key) ? this.changed.get(key)! : value];
    yield* this.added;
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) fn(value, key, this);
  }
}
