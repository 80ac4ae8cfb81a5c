import { useState } from 'preact/hooks'
import { type PosConnection, type PosItem, api } from '../api.js'
import { DataTable, ErrorNote, Screen, formatDate, useLoad } from '../ui.js'
import { ConnectPos } from './connect-pos.js'

type Suggested = PosItem & { suggestion: NonNullable<PosItem['suggestion']> }

export function PosScreen() {
  const connections = useLoad(() => api.posConnections(), [])
  const [selected, setSelected] = useState('')
  const connection = connections.data?.find((candidate) => candidate.id === selected) ?? connections.data?.[0]
  return (
    <Screen title="POS connections">
      <ErrorNote error={connections.error} />
      {connections.data?.length === 0 && <p>No POS is connected yet.</p>}
      {connections.data && connections.data.length > 0 && (
        <DataTable columns={['Connection', 'POS', 'Location', 'Status', 'Last sync']}>
          {connections.data.map((candidate) => (
            <tr key={candidate.id} aria-selected={candidate === connection}>
              <th scope="row">
                <button type="button" class="link" aria-pressed={candidate === connection} onClick={() => setSelected(candidate.id)}>
                  {candidate.name}
                </button>
              </th>
              <td>{candidate.pos_type}</td>
              <td>{candidate.location}</td>
              <td>
                <span class={`badge pos-${candidate.status}`}>{candidate.status}</span>
              </td>
              <td>{formatDate(candidate.last_sync)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {connection && <SyncRuns connection={connection} key={`runs-${connection.id}`} />}
      {connection && <ReviewQueue connection={connection} key={`review-${connection.id}`} />}
      <ConnectPos onConnected={(id) => (setSelected(id), connections.reload())} />
    </Screen>
  )
}

function SyncRuns({ connection }: { connection: PosConnection }) {
  const runs = useLoad(() => api.syncRuns(connection.id), [connection.id])
  const [startError, setStartError] = useState<unknown>(undefined)
  async function start() {
    setStartError(undefined)
    try {
      await api.startSync(connection.id)
      runs.reload()
    } catch (error) {
      setStartError(error)
    }
  }
  return (
    <section aria-labelledby="sync-title">
      <h2 id="sync-title">Sync runs of {connection.name}</h2>
      <p>
        <button type="button" onClick={() => void start()}>
          Sync now
        </button>{' '}
        <button type="button" class="link" onClick={runs.reload}>
          Refresh
        </button>
      </p>
      <ErrorNote error={startError ?? runs.error} />
      {runs.data?.length === 0 && <p>No sync has run yet.</p>}
      {runs.data && runs.data.length > 0 && (
        <DataTable columns={['Started', 'Type', 'Status', { label: 'Seconds', number: true }, 'Results']}>
          {runs.data.map((run) => (
            <tr key={run.sync_id}>
              <th scope="row">{formatDate(run.started_at)}</th>
              <td>{run.sync_type}</td>
              <td>
                <span class={`badge sync-${run.status}`}>{run.status}</span>
              </td>
              <td class="number">{run.duration_seconds ?? '—'}</td>
              <td>
                {run.results && `${run.results.sales_synced} sales, ${run.results.products_synced} products`}
                {run.error && `${run.error.message} (${run.error.code})`}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  )
}

/** What one sale of a mapping takes, in words: "1 sale = 1.5 oz = 0.059 bottle of Tito's Handmade Vodka 750ml". */
function usageInWords(mapping: PosItem): string {
  const given = mapping.recipe_id === null ? `${mapping.conversion_factor} ${mapping.conversion_unit}` : `${mapping.conversion_factor} serving(s)`
  const taken = mapping.usage_per_sale.map((usage) => `${Number(usage.units.toFixed(3))} ${usage.unit} of ${usage.inventory_name}`).join(' + ')
  return `1 sale = ${given} = ${taken || 'nothing'}`
}

/** The mapping just made, in words, with its warnings: a beer mapped in oz says so before its sales deplete the wrong amount. */
function MappedNote({ mapping }: { mapping: PosItem }) {
  return (
    <div class="help" role="status">
      <p>
        Mapped {mapping.pos_name}: {usageInWords(mapping)}
      </p>
      {mapping.warnings.length > 0 && (
        <ul class="warnings">
          {mapping.warnings.map((warning) => (
            <li key={warning.message}>{warning.message}</li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** Auto-map matches left for a person to decide: accepting maps the POS item to the suggested inventory item, rejecting drops the suggestion for good. */
function ReviewQueue({ connection }: { connection: PosConnection }) {
  const items = useLoad(() => api.posItems(connection.id), [connection.id])
  const locations = useLoad(() => api.locations(), [])
  const locationNames = new Map(locations.data?.map((location) => [location.id, location.name]))
  const [mapped, setMapped] = useState<PosItem | undefined>(undefined)
  const suggested = (items.data ?? []).filter((item): item is Suggested => item.suggestion !== null)
  const onDecided = (created?: PosItem) => {
    setMapped(created)
    items.reload()
  }
  return (
    <section aria-labelledby="review-title">
      <h2 id="review-title">Mappings to review</h2>
      <ErrorNote error={items.error} />
      {mapped && <MappedNote mapping={mapped} />}
      {items.data && suggested.length === 0 && <p>No suggestion waits for review.</p>}
      {suggested.length > 0 && (
        <DataTable
          columns={['POS item', 'Suggested inventory item', { label: 'Confidence', number: true }, 'Why it waits', 'Amount per POS unit', { label: 'Actions', hidden: true }]}
        >
          {suggested.map((item) => (
            <ReviewRow
              key={item.pos_item_id}
              connection={connection}
              item={item}
              locationName={locationNames.get(item.suggestion.location) ?? item.suggestion.location}
              onDecided={onDecided}
            />
          ))}
        </DataTable>
      )}
      {items.data && <p class="help">{items.data.length - suggested.length} other POS items are not mapped and have no suggestion.</p>}
    </section>
  )
}

/** A POS sale takes an amount of the item: a pour in oz or ml (1.5 oz for a shot), 1 bottle for a bottle sold. */
function ReviewRow(props: { connection: PosConnection; item: Suggested; locationName: string; onDecided: (created?: PosItem) => void }) {
  const { connection, item, onDecided } = props
  const [amount, setAmount] = useState('')
  const [unit, setUnit] = useState('oz')
  const [error, setError] = useState<unknown>(undefined)
  const id = `amount-${item.pos_item_id}`
  /** Runs an accept (answering the mapping made) or a reject (answering nothing). */
  async function decide(answer: () => Promise<PosItem | undefined>) {
    setError(undefined)
    try {
      onDecided(await answer())
    } catch (failure) {
      setError(failure)
    }
  }
  const accept = () => decide(() => api.acceptSuggestion(connection.id, item, { conversion_factor: Number(amount.replace(',', '.')), conversion_unit: unit }))
  const reject = () =>
    decide(async () => {
      await api.rejectSuggestion(connection.id, item.pos_item_id)
      return undefined
    })
  return (
    <tr>
      <th scope="row">{item.pos_name}</th>
      <td>
        {item.suggestion.inventory_name}
        {/* Two locations may stock the same name: the one whose stock the sales will take. */}
        <span class="sub">at {props.locationName}</span>
      </td>
      <td class="number">{Math.round(item.suggestion.confidence * 100)} %</td>
      <td>{item.suggestion.reason ?? '—'}</td>
      <td>
        <label class="visually-hidden" for={id}>
          Amount of {item.suggestion.inventory_name} per {item.pos_name}
        </label>
        <input id={id} class="amount" inputMode="decimal" value={amount} onInput={(event) => setAmount(event.currentTarget.value)} aria-invalid={error ? true : undefined} />{' '}
        <label class="visually-hidden" for={`${id}-unit`}>
          Unit of the amount
        </label>
        <select id={`${id}-unit`} value={unit} onChange={(event) => setUnit(event.currentTarget.value)}>
          <option value="oz">oz</option>
          <option value="ml">ml</option>
          <option value="bottle">bottle</option>
        </select>
        <ErrorNote error={error} />
      </td>
      <td>
        <button type="button" disabled={amount.trim() === ''} onClick={() => void accept()} aria-label={`Accept ${item.suggestion.inventory_name} for ${item.pos_name}`}>
          Accept
        </button>{' '}
        <button type="button" class="danger" onClick={() => void reject()} aria-label={`Reject ${item.suggestion.inventory_name} for ${item.pos_name}`}>
          Reject
        </button>
      </td>
    </tr>
  )
}
