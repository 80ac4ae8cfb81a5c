import { useMemo, useState } from 'preact/hooks'
import { api, type VarianceItem, type VarianceReport } from '../api.js'
import { DataTable, ErrorNote, LocationSelect, Screen, formatDay, formatMoney, formatQuantity, useLoad } from '../ui.js'
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
          <Headline report={data} />
          <p class="help">
            Period {data.period.replace('/', ' to ')}, measured from the count of {formatDay(data.period_measured.from)} to that of {formatDay(data.period_measured.to)}: usage is
            known between counts only, so the windows may start before the period and end before its last day. {data.data_quality.items_without_counts} items lack two counts and
            are left out.
          </p>
          {losses.length > 0 && (
            <>
              <h2>Loss by item</h2>
              <LossBars items={losses} currency={data.currency} />
            </>
          )}
          <h2>Items and their likely causes</h2>
          {data.items.length === 0 ? <p>No item has two counts in this period yet.</p> : <VarianceTable items={data.items} currency={data.currency} />}
          {data.items.some(isGain) && <p class="help">{GAIN_TO_CHECK}</p>}
        </>
      )}
    </Screen>
  )
}

/** More stock than the sales explain (with nothing expected, the rate alone does not say so: the loss does). */
const isGain = (item: VarianceItem) => item.variance_percentage < 0 || item.estimated_loss < 0

const GAIN_TO_CHECK = 'A negative variance is a gain to check, not good news: more stock than the sales explain, usually a count, a delivery or a transfer nobody recorded.'

/**
 * The loss leads: the sum of the items that lost stock (gains elsewhere do not hide it), then the gains to
 * check, then the net the two make.
 */
function Headline({ report }: { report: VarianceReport }) {
  const { summary, currency } = report
  return (
    <dl class="cards">
      <div>
        <dt>Loss</dt>
        <dd>{formatMoney(summary.gross_loss, currency)}</dd>
        <dd class="breakdown">{formatQuantity(summary.gross_loss_percentage)} % of the expected use</dd>
      </div>
      <div>
        <dt>Gain to check</dt>
        <dd>{formatMoney(summary.gross_gain, currency)}</dd>
        <dd class="breakdown">Stock nobody recorded</dd>
      </div>
      <div>
        <dt>Net variance</dt>
        <dd>{formatMoney(report.total_variance, currency)}</dd>
        <dd class="breakdown">{formatQuantity(report.variance_percentage)} %</dd>
      </div>
      <div>
        <dt>Items above {formatQuantity(report.threshold)} %</dt>
        <dd>
          {summary.items_above_threshold} of {summary.total_items_analyzed}
        </dd>
      </div>
      <div>
        <dt>Recorded waste</dt>
        <dd>{formatMoney(summary.recorded_waste_cost, currency)}</dd>
        {Object.entries(summary.waste_by_reason).map(([reason, cost]) => (
          <dd class="breakdown" key={reason}>
            {reasonLabel(reason)}: {formatMoney(cost)}
          </dd>
        ))}
      </div>
      <div>
        <dt>Sales mapped</dt>
        <dd>{Math.round(report.data_quality.mapped_revenue_share * 100)} %</dd>
      </div>
    </dl>
  )
}

/**
 * The items that lost most as bars of text and boxes: every name and amount is written out, so the chart
 * reads on a phone as on a laptop, and a screen reader reads it as the list it is.
 */
function LossBars({ items, currency }: { items: VarianceItem[]; currency: string }) {
  const largest = Math.max(...items.map((item) => item.estimated_loss))
  return (
    <figure class="bars" aria-labelledby="loss-bars-title">
      <figcaption id="loss-bars-title">
        Estimated loss of the {items.length} items that lost most, in {currency}
      </figcaption>
      <ol>
        {items.map((item) => (
          <li key={item.inventory_item_id}>
            <span class="bar-name">{item.name}</span>
            <span class="bar-line">
              <span class="bar-track">
                <span class="bar" style={{ width: `${(item.estimated_loss / largest) * 100}%`, background: LOSS_COLOR }} />
              </span>
              <span class="bar-value">{formatMoney(item.estimated_loss)}</span>
            </span>
          </li>
        ))}
      </ol>
    </figure>
  )
}

function VarianceTable({ items, currency }: { items: VarianceItem[]; currency: string }) {
  return (
    <DataTable
      columns={[
        'Item',
        { label: 'Expected', number: true },
        { label: 'Used', number: true },
        { label: 'Variance', number: true },
        { label: `Loss (${currency})`, number: true },
        'Transfers and waste',
        'Causes and evidence',
      ]}
    >
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
          <td class="number">
            {formatQuantity(item.variance_percentage)} %{isGain(item) && <span class="sub">gain to check</span>}
          </td>
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
