import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { DataTable, ErrorNote, LocationSelect, Pager, Screen, formatQuantity, useLoad } from '../ui.js'

const PAGE_SIZE = 50
const SEARCH_DELAY_MS = 250

/** The search text once typing pauses, so each keystroke does not cost a request. */
function useSettled(value: string): string {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), SEARCH_DELAY_MS)
    return () => clearTimeout(timer)
  }, [value])
  return settled
}

export function StockScreen() {
  const [location, setLocation] = useState('')
  const [search, setSearch] = useState('')
  const [lowOnly, setLowOnly] = useState(false)
  const [belowParOnly, setBelowParOnly] = useState(false)
  const [page, setPage] = useState(1)
  const q = useSettled(search.trim())
  useEffect(() => setPage(1), [location, q, lowOnly, belowParOnly])
  const items = useLoad(
    () => api.items({ location, q, low_stock: lowOnly || undefined, below_par: belowParOnly || undefined, page, per_page: PAGE_SIZE, sort: 'name' }),
    [location, q, lowOnly, belowParOnly, page],
  )
  const pagination = items.data?.pagination

  return (
    <Screen title="Stock">
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <LocationSelect value={location} onChange={setLocation} allowAll />
        <div class="field">
          <label for="stock-search">Search name or SKU</label>
          <input id="stock-search" type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </div>
        <div class="field checkbox">
          <input id="low-stock" type="checkbox" checked={lowOnly} onChange={(event) => setLowOnly(event.currentTarget.checked)} />
          <label for="low-stock">Low stock only</label>
        </div>
        <div class="field checkbox">
          <input id="below-par" type="checkbox" checked={belowParOnly} onChange={(event) => setBelowParOnly(event.currentTarget.checked)} />
          <label for="below-par">Below par only</label>
        </div>
      </form>
      <ErrorNote error={items.error} />
      <p class="status" aria-live="polite">
        {items.loading ? 'Loading…' : pagination ? `${pagination.total} item${pagination.total === 1 ? '' : 's'}` : ''}
      </p>
      <DataTable
        caption="Stock by location"
        columns={['Item', 'SKU', 'Location', { label: 'On hand', number: true }, { label: 'Reorder point', number: true }, { label: 'Par', number: true }, 'Status']}
      >
        {items.data?.data.map((item) => {
          const low = item.quantity < item.reorder_point
          return (
            <tr key={item.id} class={low ? 'low' : undefined}>
              <th scope="row">{item.name}</th>
              <td>{item.sku}</td>
              <td>{item.location}</td>
              <td class="number">
                {formatQuantity(item.quantity)} {item.unit}
              </td>
              <td class="number">{formatQuantity(item.reorder_point)}</td>
              <td class="number">{item.par_level === null ? '–' : formatQuantity(item.par_level)}</td>
              <td>{low ? <span class="badge low">Low stock</span> : <span class="badge ok">OK</span>}</td>
            </tr>
          )
        })}
      </DataTable>
      {pagination && <Pager page={page} totalPages={pagination.total_pages} onPage={setPage} />}
    </Screen>
  )
}
