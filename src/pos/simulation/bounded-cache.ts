/**
 * A memo with a bound: entries are weighed when stored (1 each unless told otherwise) and the least
 * recently used go once the total weight passes the bound. The newest entry always stays, however heavy.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>()
  private totalWeight = 0

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value stored under `key`, computed and stored first when missing. */
  get(key: K, compute: () => V): V {
    const hit = this.entries.get(key)
    if (hit) {
      // Map keeps insertion order: re-inserting makes this the most recently used entry.
      this.entries.delete(key)
      this.entries.set(key, hit)
      return hit.value
    }
    const value = compute()
    const weight = this.weigh(value)
    this.entries.set(key, { value, weight })
    this.totalWeight += weight
    for (const [oldestKey, oldest] of this.entries) {
      if (this.totalWeight <= this.maxWeight || oldestKey === key) break
      this.entries.delete(oldestKey)
      this.totalWeight -= oldest.weight
    }
    return value
  }
}
