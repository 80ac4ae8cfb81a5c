import { useState } from 'preact/hooks'
import { ApiError, type Item, type WasteEntry, type WasteReason, api, itemsAt } from '../api.js'
import { RECENT_RECORDS, RecentRecords, RecordCard } from '../records.js'
import {
  ErrorNote,
  LocationSelect,
  NOT_A_NUMBER,
  NameField,
  Screen,
  formatMoney,
  formatQuantity,
  lineOf,
  parseQuantity,
  rememberName,
  rememberedName,
  useLoad,
  useSubmission,
} from '../ui.js'

/** The API's waste reasons, as a person reads them. */
const REASONS: Record<WasteReason, string> = {
  spill: 'Spill',
  breakage: 'Breakage',
  comp: 'Comp',
  staff_drink: 'Staff drink',
  spoilage: 'Spoilage',
  returned: 'Returned to the distributor',
  other: 'Other',
}

export const reasonLabel = (reason: string) => REASONS[reason as WasteReason] ?? reason

/** One line being typed, as typed. */
interface WasteLineDraft {
  itemId: string
  quantity: string
  unit: string
  reason: WasteReason | ''
  notes: string
}

const BLANK_LINE: WasteLineDraft = { itemId: '', quantity: '', unit: '', reason: '', notes: '' }

/** An item is wasted in its own unit, or, when its size is known, poured off in oz or ml. */
const unitsOf = (item: Item | undefined) => (item ? [...new Set(item.size_ml ? [item.unit, 'oz', 'ml'] : [item.unit])] : [])

const isComplete = (line: WasteLineDraft) => line.itemId !== '' && parseQuantity(line.quantity) !== undefined && line.reason !== ''

export function WasteScreen() {
  const [location, setLocation] = useState('')
  const items = useLoad(() => (location ? itemsAt(location) : Promise.resolve([])), [location])
  const entries = useLoad(() => api.wasteEntries({ location, per_page: RECENT_RECORDS }), [location])
  return (
    <Screen title="Waste">
      <ErrorNote error={items.error} />
      <WasteForm location={location} onLocation={setLocation} items={items.data ?? []} onRecorded={entries.reload} />
      <RecentRecords id="waste" title="Recent waste" records={entries} empty="No waste recorded yet.">
        {(entry) => <WasteCard key={entry.id} entry={entry} onVoided={entries.reload} />}
      </RecentRecords>
    </Screen>
  )
}

/** Where and who, then one or more lines: item, quantity and unit, reason, notes. */
function WasteForm(props: { location: string; onLocation: (location: string) => void; items: Item[]; onRecorded: () => void }) {
  const [recordedBy, setRecordedBy] = useState(rememberedName)
  const [lines, setLines] = useState<WasteLineDraft[]>([BLANK_LINE])
  const [recorded, setRecorded] = useState<WasteEntry | null>(null)
  const submission = useSubmission()
  const failedLine = lineOf(submission.error)
  const change = (index: number, line: WasteLineDraft) => setLines(lines.map((current, position) => (position === index ? line : current)))

  async function record(event: Event) {
    event.preventDefault()
    const items = lines.map((line) => ({
      item_id: line.itemId,
      quantity: parseQuantity(line.quantity)!,
      unit: line.unit,
      reason: line.reason,
      notes: line.notes.trim() || undefined,
    }))
    setRecorded(null)
    const entry = await submission.submit({ location: props.location, recorded_by: recordedBy.trim(), items }, api.recordWaste)
    if (!entry) return
    rememberName(recordedBy)
    setLines([BLANK_LINE])
    setRecorded(entry)
    props.onRecorded()
  }

  return (
    <form class="stock-form" onSubmit={record}>
      <LocationSelect id="waste-location" value={props.location} onChange={(value) => (props.onLocation(value), setLines([BLANK_LINE]))} />
      <NameField id="waste-by" value={recordedBy} onChange={setRecordedBy} />
      {props.location &&
        lines.map((line, index) => (
          <WasteLineFields
            key={index}
            index={index}
            line={line}
            items={props.items}
            error={index === failedLine ? submission.error : undefined}
            onChange={(changed) => change(index, changed)}
            onRemove={lines.length > 1 ? () => setLines(lines.filter((_, position) => position !== index)) : undefined}
          />
        ))}
      {props.location && (
        <button type="button" onClick={() => setLines([...lines, BLANK_LINE])}>
          Add another item
        </button>
      )}
      <ErrorNote error={failedLine === undefined ? submission.error : undefined} />
      {recorded && (
        <p class="notice" role="status">
          Waste recorded at {recorded.location}: {formatMoney(recorded.total_cost)}.
        </p>
      )}
      <button type="submit" class="primary big" disabled={!props.location || !recordedBy.trim() || !lines.every(isComplete) || submission.busy}>
        Record waste ({lines.length})
      </button>
    </form>
  )
}

function WasteLineFields(props: {
  index: number
  line: WasteLineDraft
  items: Item[]
  error: unknown
  onChange: (line: WasteLineDraft) => void
  onRemove: (() => void) | undefined
}) {
  const { line } = props
  const id = `waste-${props.index}`
  const item = props.items.find((candidate) => candidate.id === line.itemId)
  const unreadable = line.quantity.trim() !== '' && parseQuantity(line.quantity) === undefined
  // The field the API refused (items[0].unit): marked invalid, with the message under the line.
  const invalid = (field: string) => (props.error instanceof ApiError && props.error.parameter?.endsWith(`.${field}`)) || undefined
  const errorId = `${id}-error`
  const set = (change: Partial<WasteLineDraft>) => props.onChange({ ...line, ...change })
  return (
    <fieldset class="waste-line">
      <legend>Item {props.index + 1}</legend>
      <div class="field">
        <label for={`${id}-item`}>Item</label>
        <select
          id={`${id}-item`}
          value={line.itemId}
          aria-invalid={invalid('item_id')}
          aria-describedby={errorId}
          onChange={(event) => set({ itemId: event.currentTarget.value, unit: props.items.find((candidate) => candidate.id === event.currentTarget.value)?.unit ?? '' })}
        >
          <option value="">Choose an item</option>
          {props.items.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.name}
            </option>
          ))}
        </select>
      </div>
      <div class="quantity-unit">
        <div class="field">
          <label for={`${id}-quantity`}>Quantity</label>
          <input
            id={`${id}-quantity`}
            inputMode="decimal"
            autocomplete="off"
            value={line.quantity}
            aria-invalid={unreadable || invalid('quantity')}
            aria-describedby={errorId}
            onInput={(event) => set({ quantity: event.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for={`${id}-unit`}>Unit</label>
          <select id={`${id}-unit`} value={line.unit} aria-invalid={invalid('unit')} aria-describedby={errorId} onChange={(event) => set({ unit: event.currentTarget.value })}>
            {unitsOf(item).map((unit) => (
              <option key={unit} value={unit}>
                {unit}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="field">
        <label for={`${id}-reason`}>Reason</label>
        <select
          id={`${id}-reason`}
          value={line.reason}
          aria-invalid={invalid('reason')}
          aria-describedby={errorId}
          onChange={(event) => set({ reason: event.currentTarget.value as WasteReason })}
        >
          <option value="">Choose a reason</option>
          {Object.entries(REASONS).map(([reason, label]) => (
            <option key={reason} value={reason}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {line.reason === 'comp' && <p class="help">A comp rung on the POS is a sale already: log only what the POS did not ring.</p>}
      <div class="field">
        <label for={`${id}-notes`}>Notes (optional)</label>
        <input id={`${id}-notes`} value={line.notes} onInput={(event) => set({ notes: event.currentTarget.value })} />
      </div>
      <ErrorNote id={errorId} error={unreadable ? NOT_A_NUMBER : props.error} />
      {props.onRemove && (
        <button type="button" class="link danger" onClick={props.onRemove}>
          Remove item {props.index + 1}
        </button>
      )}
    </fieldset>
  )
}

function WasteCard({ entry, onVoided }: { entry: WasteEntry; onVoided: () => void }) {
  return (
    <RecordCard
      id={entry.id}
      heading={`${entry.location}: ${formatMoney(entry.total_cost)}`}
      by={entry.recorded_by}
      at={entry.occurred_at}
      voidedAt={entry.voided_at}
      onVoid={() => api.voidWaste(entry.id)}
      onVoided={onVoided}
    >
      <ul class="record-lines">
        {entry.items.map((line, index) => (
          <li key={index}>
            {line.name}: {formatQuantity(line.quantity)} {line.unit}, {reasonLabel(line.reason)} ({formatMoney(line.cost)}){line.notes && `. ${line.notes}`}
          </li>
        ))}
      </ul>
    </RecordCard>
  )
}
