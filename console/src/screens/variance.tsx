import { useMemo, useState } from 'preact/hooks'
import { api, type VarianceItem } from '../api.js'
import { Chart, barChart } from '../chart.js'
import { DataTable, ErrorNote, LocationSelect, Screen, formatMoney, formatQuantity, useLoad } from '../ui.js'
import { reasonLabel } from './waste.js'

const CHART_ITEMS = 10
const LOSS_COLOR = '#b42318'

/** `theft_or_breakage` → `theft or breakage` (docs/variance-causes.md explains each cause). */
const causeName = (cause: string) => cause.replaceAll('_', ' ')

export function VarianceScreen() {
  const [location, setLocation] = useState('')
  const [dateFrom, setDateFrom] = useState('')
  const [dateTo, setDateTo] = useState('')
  const report = useLoad(() => api.variance({ location, date_from: dateFrom, date_to: dateTo }), [location, dateFrom, dateTo])
  const data = report.data
  const losses = useMemo(() => (data?.items ?? []).filter((item) => item.estimated_loss > 0).slice(0, CHART_ITEMS), [data])
  const chart = useMemo(
    () => ({ options: barChart(losses.map((item) => item.name), `Loss (${data?.currency ?? ''})`, LOSS_COLOR), data: [losses.map((_, index) => index), losses.map((item) => item.estimated_loss)] as [number[], number[]] }),
    [losses],
  )

  return (
    <Screen title="Variance">
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <LocationSelect value={location} onChange={setLocation} allowAll />
        <div class="field">
          <label for="variance-from">From</label>
          <input id="variance-from" type="date" value={dateFrom} onChange={(event) => setDateFrom(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="variance-to">To</label>
          <input id="variance-to" type="date" value={dateTo} onChange={(event) => setDateTo(event.currentTarget.value)} />
        </div>
      </form>
      <ErrorNote error={report.error} />
      {report.loading && <p class="status">Loading…</p>}
      {data && (
        <>
          <dl class="cards">
            <div>
              <dt>Estimated loss</dt>
              <dd>{formatMoney(data.total_variance, data.currency)}</dd>
            </div>
            <div>
              <dt>Variance</dt>
              <dd>{formatQuantity(data.variance_percentage)} %</dd>
            </div>
            <div>
              <dt>Items above {formatQuantity(data.threshold)} %</dt>
              <dd>
                {data.summary.items_above_threshold} of {data.summary.total_items_analyzed}
              </dd>
            </div>
            <div>
              <dt>Recorded waste</dt>
              <dd>{formatMoney(data.summary.recorded_waste_cost, data.currency)}</dd>
              {Object.entries(data.summary.waste_by_reason).map(([reason, cost]) => (
                <dd class="breakdown" key={reason}>
                  {reasonLabel(reason)}: {formatMoney(cost)}
                </dd>
              ))}
            </div>
            <div>
              <dt>Sales mapped</dt>
              <dd>{Math.round(data.data_quality.mapped_revenue_share * 100)} %</dd>
            </div>
          </dl>
          <p class="help">Period {data.period.replace('/', ' to ')}. {data.data_quality.items_without_counts} items lack two counts and are left out.</p>
          {losses.length > 0 && (
            <>
              <h2>Loss by item</h2>
              <Chart label={`Estimated loss of the ${losses.length} items that lost most, in ${data.currency}; the table below has the figures.`} {...chart} />
            </>
          )}
          <h2>Items and their likely causes</h2>
          {data.items.length === 0 ? <p>No item has two counts in this period yet.</p> : <VarianceTable items={data.items} currency={data.currency} />}
        </>
      )}
    </Screen>
  )
}

function VarianceTable({ items, currency }: { items: VarianceItem[]; currency: string }) {
  return (
    <DataTable columns={['Item', { label: 'Expected', number: true }, { label: 'Used', number: true }, { label: 'Variance', number: true }, { label: `Loss (${currency})`, number: true }, 'Transfers and waste', 'Causes and evidence']}>
      {items.map((item) => (
        <tr key={item.inventory_item_id}>
          <th scope="row">
            {item.name}
            <span class="sub">{item.location}</span>
          </th>
          <td class="number">
            {formatQuantity(item.expected_consumption)} {item.unit}
          </td>
          <td class="number">
            {formatQuantity(item.actual_consumption)} {item.unit}
          </td>
          <td class="number">{formatQuantity(item.variance_percentage)} %</td>
          <td class="number">{formatMoney(item.estimated_loss)}</td>
          <td>
            <ExplainedMovements item={item} />
          </td>
          <td>
            {item.cause_evidence.length === 0
              ? 'Within the threshold'
              : item.cause_evidence.map((cause) => (
                  <details key={cause.cause}>
                    <summary>
                      {causeName(cause.cause)} ({Math.round(cause.confidence * 100)} % confidence)
                    </summary>
                    <dl class="evidence">
                      {Object.entries(cause.evidence).map(([name, value]) => (
                        <div key={name}>
                          <dt>{name.replaceAll('_', ' ')}</dt>
                          <dd>{typeof value === 'number' ? formatQuantity(value) : value}</dd>
                        </div>
                      ))}
                    </dl>
                  </details>
                ))}
          </td>
        </tr>
      ))}
    </DataTable>
  )
}

/** What moved in the item's window besides sales: transfers and recorded waste, explained usage that is not a loss. */
function ExplainedMovements({ item }: { item: VarianceItem }) {
  const { transfers_in, transfers_out, recorded_waste, recorded_waste_cost } = item.window
  const movements = [
    transfers_in > 0 && `Transferred in: ${formatQuantity(transfers_in)} ${item.unit}`,
    transfers_out > 0 && `Transferred out: ${formatQuantity(transfers_out)} ${item.unit}`,
    recorded_waste > 0 && `Recorded waste: ${formatQuantity(recorded_waste)} ${item.unit} (${formatMoney(recorded_waste_cost)})`,
  ].filter((movement) => movement !== false)
  if (movements.length === 0) return <>—</>
  return (
    <ul class="plain">
      {movements.map((movement) => (
        <li key={movement}>{movement}</li>
      ))}
    </ul>
  )
}
