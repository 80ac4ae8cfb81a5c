import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, type CountResult, type Item, api, newIdempotencyKey, worthRetrying } from '../api.js'
import { ErrorNote, LocationSelect, NOT_A_NUMBER, NameField, Screen, describeError, formatQuantity, parseQuantity, rememberName, rememberedName } from '../ui.js'
import { entryWarning } from './count-checks.js'
import { ShelfOrderEditor, itemsInShelfOrder } from './shelf-order.js'

/**
 * The count in progress, saved on this device after every keystroke: a reload, a closed tab or a lost
 * connection loses nothing typed. It holds the item list too, so counting goes on without a network.
 */
interface CountDraft {
  location: string
  countedBy: string
  /** In the location's shelf order; quantity and par_level (absent in older drafts) check the entries. */
  items: (Pick<Item, 'id' | 'name' | 'sku' | 'unit' | 'full_weight_g' | 'empty_weight_g'> & Partial<Pick<Item, 'quantity' | 'par_level'>>)[]
  /** What was typed per item id, as typed ('' or absent: not counted). */
  values: Record<string, string>
  /** The open containers' weights typed per item id (grams, as typed), for items with container weights. */
  weights: Record<string, string[]>
  /** The item shown; items.length is the review. */
  position: number
  /** The idempotency key of a submission sent but not answered: a retry reuses it, so the count is recorded once. */
  submission?: string
}

const DRAFT_STORAGE = 'barstock.count_draft'
const FIRST_RETRY_MS = 2_000
const LONGEST_RETRY_MS = 30_000

function loadDraft(): CountDraft | null {
  const saved = localStorage.getItem(DRAFT_STORAGE)
  if (!saved) return null
  // A draft saved before weights were taken has none.
  const draft = JSON.parse(saved) as Omit<CountDraft, 'weights'> & { weights?: CountDraft['weights'] }
  return { ...draft, weights: draft.weights ?? {} }
}

function saveDraft(draft: CountDraft | null) {
  if (draft) localStorage.setItem(DRAFT_STORAGE, JSON.stringify(draft))
  else localStorage.removeItem(DRAFT_STORAGE)
}

/** The weights typed for an item, blanks left out. */
function typedWeights(draft: CountDraft, itemId: string): string[] {
  return (draft.weights[itemId] ?? []).filter((weight) => weight.trim() !== '')
}

/** Counted: a quantity or an open container's weight was typed. */
function isCounted(draft: CountDraft, itemId: string): boolean {
  return (draft.values[itemId] ?? '').trim() !== '' || typedWeights(draft, itemId).length > 0
}

/** A count line as sent, or the error to show on its item when something typed is not a number. */
function lineOf(draft: CountDraft, itemId: string): { item_id: string; quantity: number; weights_g?: number[] } | { error: string } {
  const typed = (draft.values[itemId] ?? '').trim()
  const quantity = typed === '' ? 0 : parseQuantity(typed)
  if (quantity === undefined) return { error: NOT_A_NUMBER }
  const weights = typedWeights(draft, itemId).map(parseQuantity)
  if (weights.some((weight) => weight === undefined)) return { error: 'Enter each weight in grams, such as 812' }
  return weights.length === 0 ? { item_id: itemId, quantity } : { item_id: itemId, quantity, weights_g: weights as number[] }
}

/** A counted line as the review shows it: full units, then each weighed open container. */
function reviewText(draft: CountDraft, item: CountDraft['items'][number]): string {
  if (!isCounted(draft, item.id)) return 'not counted'
  const weights = typedWeights(draft, item.id)
  const quantity = `${(draft.values[item.id] ?? '').trim() || '0'} ${item.unit}`
  return weights.length === 0 ? quantity : `${quantity} + open: ${weights.map((weight) => `${weight} g`).join(', ')}`
}

/** Why what was typed for the item looks wrong (below zero, far above the expected), or undefined. */
function warningOf(draft: CountDraft, item: CountDraft['items'][number]): string | undefined {
  return entryWarning(item, draft.values[item.id] ?? '', typedWeights(draft, item.id).length)
}

/** The item a field error of the API is about: `items[3].quantity` names the 4th line sent; item_not_found names the id. */
function lineOfError(error: ApiError, sentIds: string[]): string | undefined {
  if (error.line !== undefined) return sentIds[error.line]
  return sentIds.find((id) => error.message.includes(id))
}

type Sending = { state: 'idle' } | { state: 'sending' } | { state: 'waiting'; attempt: number; error: unknown } | { state: 'failed'; error: unknown }

export function CountScreen() {
  const [draft, setDraftState] = useState<CountDraft | null>(loadDraft)
  const [result, setResult] = useState<CountResult | null>(null)
  const [names, setNames] = useState<Record<string, string>>({})
  const setDraft = (next: CountDraft | null) => {
    saveDraft(next)
    setDraftState(next)
  }
  if (result) return <CountDone result={result} names={names} onNew={() => setResult(null)} />
  if (!draft) return <CountSetup onStart={setDraft} />
  return (
    <CountSheet
      draft={draft}
      setDraft={setDraft}
      onRecorded={(recorded) => {
        setNames(Object.fromEntries(draft.items.map((item) => [item.id, item.name])))
        setDraft(null)
        setResult(recorded)
      }}
    />
  )
}

function CountSetup({ onStart }: { onStart: (draft: CountDraft) => void }) {
  const [location, setLocation] = useState('')
  const [countedBy, setCountedBy] = useState(rememberedName)
  const [error, setError] = useState<unknown>(undefined)
  const [loading, setLoading] = useState(false)
  const [arranging, setArranging] = useState(false)

  async function start(event: Event) {
    event.preventDefault()
    setLoading(true)
    setError(undefined)
    try {
      const items = await itemsInShelfOrder(location)
      if (items.length === 0) throw new Error('No items are stored at this location yet.')
      rememberName(countedBy)
      const kept = items.map(({ id, name, sku, unit, full_weight_g, empty_weight_g, quantity, par_level }) => ({
        id,
        name,
        sku,
        unit,
        full_weight_g,
        empty_weight_g,
        quantity,
        par_level,
      }))
      onStart({ location, countedBy: countedBy.trim(), items: kept, values: {}, weights: {}, position: 0 })
    } catch (failure) {
      setError(failure)
    } finally {
      setLoading(false)
    }
  }

  return (
    <Screen title="Count">
      <form class="count-setup" onSubmit={start}>
        <LocationSelect value={location} onChange={setLocation} id="count-location" />
        <NameField id="counted-by" value={countedBy} onChange={setCountedBy} />
        <ErrorNote error={error} />
        <button type="submit" class="big" disabled={loading || location === '' || countedBy.trim() === ''}>
          {loading ? 'Loading items…' : 'Start count'}
        </button>
        {location !== '' && (
          <button type="button" class="link" aria-expanded={arranging} onClick={() => setArranging(!arranging)}>
            Arrange shelf order
          </button>
        )}
      </form>
      {arranging && location !== '' && <ShelfOrderEditor location={location} key={location} />}
    </Screen>
  )
}

function CountSheet(props: { draft: CountDraft; setDraft: (draft: CountDraft | null) => void; onRecorded: (result: CountResult) => void }) {
  const { draft, setDraft } = props
  const [lineErrors, setLineErrors] = useState<Record<string, string>>({})
  const [sending, setSending] = useState<Sending>({ state: 'idle' })
  /** Set once the entries that look wrong were shown before a submission: the next press sends anyway. */
  const [warned, setWarned] = useState(false)
  useEffect(() => setWarned(false), [draft.values, draft.weights])
  const update = (change: Partial<CountDraft>) => setDraft({ ...draft, ...change })
  const goTo = (position: number) => update({ position: Math.max(0, Math.min(draft.items.length, position)) })

  const counted = draft.items.filter((item) => isCounted(draft, item.id))
  const doubtful = counted.filter((item) => warningOf(draft, item) !== undefined)

  /** Submit: entries that look wrong are shown first, and sent at the second press. */
  function submit() {
    if (doubtful.length > 0 && !warned) {
      setWarned(true)
      return
    }
    setWarned(false)
    void send(draft)
  }

  async function send(current: CountDraft) {
    const lines = []
    for (const item of current.items.filter((candidate) => isCounted(current, candidate.id))) {
      const line = lineOf(current, item.id)
      if ('error' in line) {
        setLineErrors({ [item.id]: line.error })
        goTo(current.items.indexOf(item))
        return
      }
      lines.push(line)
    }
    const submission = current.submission ?? newIdempotencyKey()
    if (!current.submission) setDraft({ ...current, submission })
    setSending({ state: 'sending' })
    try {
      const body = { location: current.location, counted_by: current.countedBy, items: lines }
      props.onRecorded(await api.recordCount(body, submission))
    } catch (error) {
      if (worthRetrying(error)) {
        setSending((previous) => ({ state: 'waiting', attempt: previous.state === 'waiting' ? previous.attempt + 1 : 0, error }))
        return
      }
      // Answered: the next submission is a new request (the lines will change), with a key of its own;
      // an error about one line is shown on that line, which is brought up to correct.
      const line =
        error instanceof ApiError
          ? lineOfError(
              error,
              lines.map((sent) => sent.item_id),
            )
          : undefined
      setLineErrors(line ? { [line]: describeError(error) } : {})
      setSending({ state: line ? 'idle' : 'failed', error })
      const position = line ? current.items.findIndex((item) => item.id === line) : current.position
      setDraft({ ...current, submission: undefined, position })
    }
  }

  // Unanswered: retry after a growing pause, or at once when the browser says it is back online.
  useEffect(() => {
    if (sending.state !== 'waiting') return
    const retry = () => void send(draft)
    const timer = setTimeout(retry, Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** sending.attempt))
    addEventListener('online', retry)
    return () => {
      clearTimeout(timer)
      removeEventListener('online', retry)
    }
  }, [sending])

  // A submission left unanswered by a reload goes out again with its key.
  useEffect(() => {
    if (draft.submission) void send(draft)
  }, [])

  const status = <SendingStatus sending={sending} onRetry={() => void send(draft)} />
  if (draft.position >= draft.items.length) {
    return (
      <Screen title="Count: review">
        <p>
          {counted.length} of {draft.items.length} items counted at {draft.location} by {draft.countedBy}. Items left blank are not part of the count.
        </p>
        <ol class="review">
          {draft.items.map((item, index) => (
            <li key={item.id} class={lineErrors[item.id] ? 'has-error' : undefined}>
              <span class="name">{item.name}</span>
              <span class="value">{reviewText(draft, item)}</span>
              <button type="button" class="link" onClick={() => goTo(index)} aria-label={`Change ${item.name}`}>
                Change
              </button>
              {isCounted(draft, item.id) && warningOf(draft, item) && <p class="warnings">{warningOf(draft, item)}</p>}
              {lineErrors[item.id] && (
                <p class="error" role="alert">
                  {lineErrors[item.id]}
                </p>
              )}
            </li>
          ))}
        </ol>
        {status}
        {warned && doubtful.length > 0 && (
          <div class="notice" role="alert">
            <p>
              {doubtful.length === 1 ? '1 entry looks' : `${doubtful.length} entries look`} wrong: {doubtful.map((item) => item.name).join(', ')}. Check{' '}
              {doubtful.length === 1 ? 'it' : 'them'} with Change, or send the count as it is.
            </p>
          </div>
        )}
        <div class="actions">
          <button type="button" onClick={() => goTo(draft.items.length - 1)}>
            Back
          </button>
          <button type="button" class="primary big" disabled={counted.length === 0 || sending.state === 'sending' || sending.state === 'waiting'} onClick={submit}>
            {warned && doubtful.length > 0 ? 'Submit anyway' : 'Submit count'} ({counted.length})
          </button>
        </div>
        <button type="button" class="link danger" onClick={() => confirm('Discard this count and everything typed?') && setDraft(null)}>
          Discard count
        </button>
      </Screen>
    )
  }
  return (
    <Screen title="Count">
      <CountLine
        key={draft.items[draft.position]!.id}
        item={draft.items[draft.position]!}
        position={draft.position}
        total={draft.items.length}
        value={draft.values[draft.items[draft.position]!.id] ?? ''}
        weights={draft.weights[draft.items[draft.position]!.id] ?? []}
        error={lineErrors[draft.items[draft.position]!.id]}
        warning={warningOf(draft, draft.items[draft.position]!)}
        onChange={(value) => update({ values: { ...draft.values, [draft.items[draft.position]!.id]: value } })}
        onWeightsChange={(weights) => update({ weights: { ...draft.weights, [draft.items[draft.position]!.id]: weights } })}
        onMove={(step) => goTo(draft.position + step)}
      />
      {status}
    </Screen>
  )
}

function CountLine(props: {
  item: CountDraft['items'][number]
  position: number
  total: number
  value: string
  weights: string[]
  error: string | undefined
  /** Why the entry looks wrong, shown as it is typed; the count can still be sent. */
  warning: string | undefined
  onChange: (value: string) => void
  onWeightsChange: (weights: string[]) => void
  onMove: (step: number) => void
}) {
  const { item } = props
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])
  // Whole units and tenths (a partly full bottle); never below zero.
  const step = (delta: number) => {
    const next = Math.max(0, Math.round(((parseQuantity(props.value) ?? 0) + delta) * 10) / 10)
    props.onChange(String(next))
  }
  return (
    <form
      class="count-line"
      onSubmit={(event) => {
        event.preventDefault()
        props.onMove(1)
      }}
    >
      <p class="progress" aria-live="polite">
        Item {props.position + 1} of {props.total}
      </p>
      <h2 id="count-item-name">{item.name}</h2>
      <p class="help">
        SKU {item.sku}. Count in {item.unit}s; an open one in tenths (0.3 is a third full)
        {weighable(item) ? `, or count the full ones and weigh each open one below` : ''}.
      </p>
      <label for="count-quantity">Quantity ({item.unit})</label>
      <input
        id="count-quantity"
        ref={input}
        class="big"
        inputMode="decimal"
        autocomplete="off"
        value={props.value}
        onInput={(event) => props.onChange(event.currentTarget.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby="count-quantity-error count-quantity-warning"
      />
      <p id="count-quantity-warning" class="warnings" aria-live="polite">
        {props.warning ?? ''}
      </p>
      <div class="steppers" role="group" aria-label="Adjust quantity">
        <button type="button" onClick={() => step(-1)} aria-label="Minus one">
          −1
        </button>
        <button type="button" onClick={() => step(-0.1)} aria-label="Minus one tenth">
          −0.1
        </button>
        <button type="button" onClick={() => step(0.1)} aria-label="Plus one tenth">
          +0.1
        </button>
        <button type="button" onClick={() => step(1)} aria-label="Plus one">
          +1
        </button>
      </div>
      {weighable(item) && <OpenContainerWeights item={item} weights={props.weights} onChange={props.onWeightsChange} />}
      <p id="count-quantity-error" class="error" role="alert">
        {props.error ?? ''}
      </p>
      <div class="actions">
        <button type="button" class="big" disabled={props.position === 0} onClick={() => props.onMove(-1)}>
          Previous
        </button>
        <button type="submit" class="primary big">
          {props.position + 1 === props.total ? 'Review' : 'Next'}
        </button>
      </div>
    </form>
  )
}

function weighable(item: CountDraft['items'][number]): boolean {
  return item.full_weight_g != null && item.empty_weight_g != null
}

/** One input per open container weighed (the phone's decimal keypad has no list separator), and a button for another. */
function OpenContainerWeights(props: { item: CountDraft['items'][number]; weights: string[]; onChange: (weights: string[]) => void }) {
  const { item } = props
  const shown = props.weights.length > 0 ? props.weights : ['']
  const change = (index: number, weight: string) => props.onChange(shown.map((typed, position) => (position === index ? weight : typed)))
  return (
    <fieldset class="weights">
      <legend>
        Open {item.unit}s by weight (g): empty {item.empty_weight_g} g, full {item.full_weight_g} g
      </legend>
      {shown.map((weight, index) => (
        <input
          key={index}
          aria-label={`Weight of open ${item.unit} ${index + 1} (g)`}
          inputMode="decimal"
          autocomplete="off"
          value={weight}
          onInput={(event) => change(index, event.currentTarget.value)}
        />
      ))}
      <button type="button" onClick={() => props.onChange([...shown, ''])}>
        Add another open {item.unit}
      </button>
    </fieldset>
  )
}

function SendingStatus({ sending, onRetry }: { sending: Sending; onRetry: () => void }) {
  if (sending.state === 'idle') return <p class="status" aria-live="polite" />
  if (sending.state === 'sending')
    return (
      <p class="status" aria-live="polite">
        Sending the count…
      </p>
    )
  if (sending.state === 'failed')
    return (
      <p class="error" role="alert">
        Not recorded: {describeError(sending.error)}
      </p>
    )
  return (
    <div class="notice" role="alert">
      <p>Not sent yet: {describeError(sending.error)} Everything typed is kept on this device and will be sent again automatically.</p>
      <button type="button" onClick={onRetry}>
        Retry now
      </button>
    </div>
  )
}

function CountDone({ result, names, onNew }: { result: CountResult; names: Record<string, string>; onNew: () => void }) {
  return (
    <Screen title="Count recorded">
      <p role="status">
        {result.items_updated} items updated at {result.location}; {result.variance_detected.length} differ from the expected stock.
      </p>
      {result.variance_detected.length > 0 && (
        <ul>
          {result.variance_detected.map((line) => (
            <li key={line.item_id}>
              {names[line.item_id] ?? line.item_id}: expected {formatQuantity(line.expected)}, counted {formatQuantity(line.actual)} ({line.variance > 0 ? '+' : ''}
              {formatQuantity(line.variance)})
            </li>
          ))}
        </ul>
      )}
      <button type="button" class="big" onClick={onNew}>
        Start another count
      </button>
    </Screen>
  )
}
