import { useState } from 'preact/hooks'
import { type Item, api, itemsAt } from '../api.js'
import { ErrorNote, useLoad } from '../ui.js'

/** The items in shelf order: the saved ids first, in their order, then the others in the order given (name order). */
export function inShelfOrder<T extends { id: string }>(items: T[], shelfOrder: string[]): T[] {
  const position = new Map(shelfOrder.map((id, index) => [id, index]))
  const listed = items.filter((item) => position.has(item.id)).sort((a, b) => position.get(a.id)! - position.get(b.id)!)
  return [...listed, ...items.filter((item) => !position.has(item.id))]
}

/** The location's items in its saved shelf order (the server keeps it, so every phone of the bar counts alike). */
export async function itemsInShelfOrder(location: string): Promise<Item[]> {
  const [items, shelf] = await Promise.all([itemsAt(location), api.shelfOrder(location)])
  return inShelfOrder(items, shelf.item_ids)
}

/** Arranges the location's items in the order they stand, and saves it for every device of the account. */
export function ShelfOrderEditor({ location }: { location: string }) {
  const loaded = useLoad(() => itemsInShelfOrder(location), [location])
  const [arranged, setArranged] = useState<Item[] | undefined>(undefined)
  const [saving, setSaving] = useState<{ busy: boolean; error?: unknown; saved?: boolean }>({ busy: false })
  const items = arranged ?? loaded.data ?? []
  const move = (index: number, step: number) => {
    const next = [...items]
    const [moved] = next.splice(index, 1)
    next.splice(index + step, 0, moved!)
    setArranged(next)
    setSaving({ busy: false })
  }
  async function save() {
    setSaving({ busy: true })
    try {
      await api.saveShelfOrder(
        location,
        items.map((item) => item.id),
      )
      setSaving({ busy: false, saved: true })
    } catch (error) {
      setSaving({ busy: false, error })
    }
  }
  return (
    <section class="shelf-order" aria-labelledby="shelf-order-title">
      <h2 id="shelf-order-title">Shelf order</h2>
      <p class="help">Put the items in the order you walk the shelves; the count follows it on every phone of the bar.</p>
      <ErrorNote error={loaded.error} />
      <ol class="shelf">
        {items.map((item, index) => (
          <li key={item.id}>
            <span class="name">{item.name}</span>
            <button type="button" disabled={index === 0} onClick={() => move(index, -1)} aria-label={`Move ${item.name} up`}>
              ↑
            </button>
            <button type="button" disabled={index === items.length - 1} onClick={() => move(index, 1)} aria-label={`Move ${item.name} down`}>
              ↓
            </button>
          </li>
        ))}
      </ol>
      <button type="button" class="primary" disabled={saving.busy || items.length === 0} onClick={() => void save()}>
        Save shelf order
      </button>
      {saving.saved && <p role="status">Shelf order saved for every phone of this account.</p>}
      <ErrorNote error={saving.error} />
    </section>
  )
}
