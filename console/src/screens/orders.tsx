import { useState } from 'preact/hooks'
import { type Order, type OrderStatus, api, newIdempotencyKey } from '../api.js'
import { DataTable, ErrorNote, LocationSelect, Pager, Screen, formatDate, formatDay, formatMoney, formatQuantity, useLoad } from '../ui.js'

const STATUSES: OrderStatus[] = ['draft', 'submitted', 'processing', 'shipped', 'delivered', 'cancelled']

export function OrdersScreen() {
  const [created, setCreated] = useState<Order | null>(null)
  return (
    <Screen title="Orders">
      <RecommendedOrder onCreated={setCreated} />
      <OrderList created={created} />
    </Screen>
  )
}

/** Recommendations for one distributor and location, turned into a draft order with one button. */
function RecommendedOrder({ onCreated }: { onCreated: (order: Order) => void }) {
  const distributors = useLoad(() => api.distributors(), [])
  const [distributor, setDistributor] = useState('')
  const [location, setLocation] = useState('')
  const [daysAhead, setDaysAhead] = useState('7')
  const ready = distributor !== '' && location !== ''
  const recommendations = useLoad(
    () => (ready ? api.recommendations({ distributor_id: distributor, location, days_ahead: Number(daysAhead) }) : Promise.resolve(undefined)),
    [distributor, location, daysAhead],
  )
  const [creating, setCreating] = useState<{ key: string; error?: unknown; busy: boolean } | null>(null)
  const lines = recommendations.data?.recommendations.filter((line) => line.recommended_order > 0) ?? []

  async function createDraft() {
    // One key per recommendation shown: a double click or a retry makes one order.
    const key = creating?.key ?? newIdempotencyKey()
    setCreating({ key, busy: true })
    try {
      const order = await api.createOrder(
        {
          distributor_id: distributor,
          location,
          items: lines.map((line) => ({ inventory_item_id: line.inventory_item_id, quantity: line.recommended_order, unit: line.unit })),
          notes: `From the recommendations for ${recommendations.data!.forecast_period}`,
        },
        key,
      )
      setCreating(null)
      onCreated(order)
    } catch (error) {
      setCreating({ key, error, busy: false })
    }
  }

  return (
    <section aria-labelledby="recommendations-title">
      <h2 id="recommendations-title">What to order</h2>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="distributor">Distributor</label>
          <select id="distributor" value={distributor} onChange={(event) => (setDistributor(event.currentTarget.value), setCreating(null))}>
            <option value="">Choose a distributor</option>
            {distributors.data?.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </div>
        <LocationSelect value={location} onChange={(value) => (setLocation(value), setCreating(null))} id="order-location" />
        <div class="field">
          <label for="days-ahead">Days to cover</label>
          <input id="days-ahead" type="number" min={1} max={30} value={daysAhead} onChange={(event) => (setDaysAhead(event.currentTarget.value), setCreating(null))} />
        </div>
      </form>
      <ErrorNote error={distributors.error ?? recommendations.error} />
      {ready && recommendations.data && (
        <>
          {lines.length === 0 ? (
            <p>Nothing needs ordering from this distributor for {recommendations.data.forecast_period.replace('/', ' to ')}.</p>
          ) : (
            <DataTable columns={['Item', { label: 'On hand', number: true }, { label: 'Forecast use', number: true }, { label: 'Order', number: true }, 'Why']}>
              {lines.map((line) => (
                <tr key={line.inventory_item_id}>
                  <th scope="row">{line.name}</th>
                  <td class="number">{formatQuantity(line.current_stock)}</td>
                  <td class="number">{formatQuantity(line.forecasted_demand)}</td>
                  <td class="number">
                    {formatQuantity(line.recommended_order)} {line.unit}
                  </td>
                  <td>{line.reason}</td>
                </tr>
              ))}
            </DataTable>
          )}
          {lines.length > 0 && (
            <p>
              Estimated total {formatMoney(recommendations.data.total_recommended_amount)}.{' '}
              <button type="button" class="primary" disabled={creating?.busy} onClick={() => void createDraft()}>
                Create draft order
              </button>
            </p>
          )}
          <ErrorNote error={creating?.error} />
        </>
      )}
    </section>
  )
}

function OrderList({ created }: { created: Order | null }) {
  // '' lists every status.
  const [status, setStatus] = useState<OrderStatus | ''>('')
  const [page, setPage] = useState(1)
  const [submitError, setSubmitError] = useState<unknown>(undefined)
  const orders = useLoad(() => api.orders({ status: status || undefined, page }), [status, page, created])
  const locations = useLoad(() => api.locations(), [])
  const locationNames = new Map(locations.data?.map((location) => [location.id, location.name]))

  async function submit(id: string) {
    setSubmitError(undefined)
    try {
      await api.submitOrder(id)
      orders.reload()
    } catch (error) {
      setSubmitError(error)
    }
  }

  return (
    <section aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      {created && (
        <p class="notice" role="status">
          Draft order created for {created.distributor_name} on {formatDate(created.created_at)}: {formatMoney(created.total_amount)}.
        </p>
      )}
      <div class="filters">
        <div class="field">
          <label for="order-status">Status</label>
          <select id="order-status" value={status} onChange={(event) => (setStatus(event.currentTarget.value as OrderStatus | ''), setPage(1))}>
            <option value="">Any status</option>
            {STATUSES.map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNote error={orders.error ?? submitError} />
      <DataTable columns={['Order', 'Status', { label: 'Total', number: true }, 'Delivery expected', { label: 'Actions', hidden: true }]}>
        {orders.data?.data.map((order) => {
          // An order is named by what a person knows it by: the distributor and the day, never its id.
          const name = `${order.distributor_name}, ${formatDate(order.created_at)}`
          return (
            <tr key={order.id}>
              <th scope="row">
                {order.distributor_name}
                <span class="sub">
                  {formatDate(order.created_at)}, for {locationNames.get(order.location) ?? order.location}
                </span>
              </th>
              <td>
                <span class={`badge status-${order.status}`}>{order.status}</span>
              </td>
              <td class="number">{formatMoney(order.total_amount)}</td>
              <td>{order.estimated_delivery ? formatDay(order.estimated_delivery) : 'once submitted'}</td>
              <td>
                {order.status === 'draft' && (
                  <button type="button" onClick={() => void submit(order.id)} aria-label={`Submit the order to ${name}`}>
                    Submit
                  </button>
                )}
              </td>
            </tr>
          )
        })}
      </DataTable>
      {orders.data && <Pager page={page} totalPages={orders.data.pagination.total_pages} onPage={setPage} />}
    </section>
  )
}
