import { useMemo, useState } from 'preact/hooks'
import { type Item, type Transfer, api, itemsAt } from '../api.js'
import { RECENT_RECORDS, RecentRecords, RecordCard } from '../records.js'
import { ErrorNote, LocationSelect, NOT_A_NUMBER, NameField, Screen, formatQuantity, lineOf, parseQuantity, rememberName, rememberedName, useLoad, useSubmission } from '../ui.js'

export function TransferScreen() {
  // Every location's items: the source's are the ones to move, and the recent list names them all.
  const items = useLoad(() => itemsAt(), [])
  const [from, setFrom] = useState('')
  const transfers = useLoad(() => api.transfers({ location: from, per_page: RECENT_RECORDS }), [from])
  const byId = useMemo(() => new Map(items.data?.map((item) => [item.id, item])), [items.data])
  const refresh = () => {
    transfers.reload()
    items.reload()
  }
  return (
    <Screen title="Transfer">
      <ErrorNote error={items.error} />
      <TransferForm from={from} onFrom={setFrom} items={items.data} onRecorded={refresh} />
      <RecentRecords id="transfers" title="Recent transfers" records={transfers} empty="No transfer recorded yet.">
        {(transfer) => <TransferCard key={transfer.id} transfer={transfer} items={byId} onVoided={refresh} />}
      </RecentRecords>
    </Screen>
  )
}

/** From, to, who, then a quantity for each item of the source to move; blank lines are not moved. */
function TransferForm(props: { from: string; onFrom: (from: string) => void; items: Item[] | undefined; onRecorded: () => void }) {
  const { from } = props
  const [to, setTo] = useState('')
  const [movedBy, setMovedBy] = useState(rememberedName)
  const [quantities, setQuantities] = useState<Record<string, string>>({})
  const [search, setSearch] = useState('')
  // The items of the lines last sent, in order: the API names a line by its index (items[2].quantity).
  const [sent, setSent] = useState<string[]>([])
  const [recorded, setRecorded] = useState<Transfer | null>(null)
  const submission = useSubmission()

  const atSource = props.items?.filter((item) => item.location === from) ?? []
  const lines = atSource.filter((item) => (quantities[item.id] ?? '').trim() !== '')
  const readable = lines.every((item) => parseQuantity(quantities[item.id]!) !== undefined)
  const failedLine = lineOf(submission.error)
  const failedItem = failedLine === undefined ? undefined : sent[failedLine]
  const shown = atSource.filter((item) => `${item.name} ${item.sku}`.toLowerCase().includes(search.trim().toLowerCase()))

  async function record(event: Event) {
    event.preventDefault()
    const items = lines.map((item) => ({ item_id: item.id, quantity: parseQuantity(quantities[item.id]!)! }))
    setSent(lines.map((item) => item.id))
    setRecorded(null)
    const transfer = await submission.submit({ from_location: from, to_location: to, transferred_by: movedBy.trim(), items }, api.createTransfer)
    if (!transfer) return
    rememberName(movedBy)
    setQuantities({})
    setRecorded(transfer)
    props.onRecorded()
  }

  return (
    <form class="stock-form" onSubmit={record}>
      <LocationSelect id="transfer-from" label="From" value={from} onChange={(value) => (props.onFrom(value), value === to && setTo(''))} />
      <LocationSelect id="transfer-to" label="To" value={to} onChange={setTo} exclude={from} />
      <NameField id="transfer-by" label="Moved by" value={movedBy} onChange={setMovedBy} />
      {from && props.items && atSource.length === 0 && <p>No items are stored at {from} yet.</p>}
      {atSource.length > 0 && (
        <fieldset class="plain">
          <legend>Quantities to move, in each item’s unit (tenths allowed)</legend>
          <div class="field">
            <label for="transfer-search">Find an item</label>
            <input id="transfer-search" type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
          </div>
          <ul class="quantity-rows">
            {shown.map((item) => (
              <QuantityRow
                key={item.id}
                item={item}
                value={quantities[item.id] ?? ''}
                onChange={(value) => setQuantities({ ...quantities, [item.id]: value })}
                error={item.id === failedItem ? submission.error : undefined}
              />
            ))}
          </ul>
        </fieldset>
      )}
      <ErrorNote error={failedItem ? undefined : submission.error} />
      {recorded && (
        <p class="notice" role="status">
          Transfer recorded: {recorded.items.length} item{recorded.items.length === 1 ? '' : 's'} from {recorded.from_location} to {recorded.to_location}.
        </p>
      )}
      <button type="submit" class="primary big" disabled={!from || !to || !movedBy.trim() || lines.length === 0 || !readable || submission.busy}>
        Record transfer ({lines.length})
      </button>
    </form>
  )
}

function QuantityRow({ item, value, onChange, error }: { item: Item; value: string; onChange: (value: string) => void; error: unknown }) {
  const id = `move-${item.id}`
  const unreadable = value.trim() !== '' && parseQuantity(value) === undefined
  return (
    <li class="quantity-row">
      <label for={id}>
        {item.name}
        <span class="sub">
          {formatQuantity(item.quantity)} {item.unit} on hand
        </span>
      </label>
      <input
        id={id}
        inputMode="decimal"
        autocomplete="off"
        value={value}
        onInput={(event) => onChange(event.currentTarget.value)}
        aria-invalid={unreadable || error ? true : undefined}
        aria-describedby={`${id}-error`}
      />
      <span class="unit">{item.unit}</span>
      <ErrorNote id={`${id}-error`} error={unreadable ? NOT_A_NUMBER : error} />
    </li>
  )
}

function TransferCard({ transfer, items, onVoided }: { transfer: Transfer; items: Map<string, Item>; onVoided: () => void }) {
  return (
    <RecordCard
      id={transfer.id}
      heading={`${transfer.from_location} → ${transfer.to_location}`}
      by={transfer.transferred_by}
      at={transfer.transferred_at}
      voidedAt={transfer.voided_at}
      onVoid={() => api.voidTransfer(transfer.id)}
      onVoided={onVoided}
    >
      <ul class="record-lines">
        {transfer.items.map((line) => {
          const item = items.get(line.from_item_id)
          return (
            <li key={line.from_item_id}>
              {item?.name ?? line.from_item_id}: {formatQuantity(line.quantity)} {item?.unit}
            </li>
          )
        })}
      </ul>
      {transfer.notes && <p class="help">{transfer.notes}</p>}
    </RecordCard>
  )
}
