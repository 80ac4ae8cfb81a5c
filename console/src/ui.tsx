import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError, NetworkError, type Location, api, newIdempotencyKey, worthRetrying } from './api.js'

/** What a failed call says to a person: the API's own message, or that the connection is down. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof NetworkError) return 'No connection to the service. Check the network and try again.'
  return error instanceof Error ? error.message : String(error)
}

/** `id` lets the field it is about point to it (aria-describedby). */
export function ErrorNote({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null
  return (
    <p class="error" role="alert" id={id}>
      {describeError(error)}
      {error instanceof ApiError && <span class="code"> ({error.code})</span>}
    </p>
  )
}

export interface Loaded<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  reload: () => void
}

/** Runs `load` when `inputs` change; the last answer wins, so a slow earlier one never overwrites it. */
export function useLoad<T>(load: () => Promise<T>, inputs: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true })
  const [generation, setGeneration] = useState(0)
  useEffect(() => {
    let current = true
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    )
    return () => {
      current = false
    }
  }, [...inputs, generation])
  const reload = useCallback(() => setGeneration((value) => value + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}

export interface Submission {
  busy: boolean
  /** The last attempt's failure, until the next attempt. */
  error: unknown
  /** Sends `body` by `write`; answers what the API answered, or undefined when it failed (see `error`). */
  submit<B, T>(body: B, write: (body: B, idempotencyKey: string) => Promise<T>): Promise<T | undefined>
}

/**
 * A form's write: the same body sent again after no answer (a lost connection, a 502) carries the same
 * idempotency key, so it is recorded once; anything answered, or a changed body, is a new write.
 */
export function useSubmission(): Submission {
  const pending = useRef<{ body: string; key: string } | undefined>(undefined)
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false })
  async function submit<B, T>(body: B, write: (body: B, idempotencyKey: string) => Promise<T>): Promise<T | undefined> {
    const text = JSON.stringify(body)
    const key = pending.current?.body === text ? pending.current.key : newIdempotencyKey()
    pending.current = { body: text, key }
    setState({ busy: true })
    try {
      const answer = await write(body, key)
      pending.current = undefined
      setState({ busy: false })
      return answer
    } catch (error) {
      if (!worthRetrying(error)) pending.current = undefined
      setState({ busy: false, error })
      return undefined
    }
  }
  return { busy: state.busy, error: state.error, submit }
}

/** The `items` line an error is about, when the API named one (`items[2].quantity` → 2). */
export const lineOf = (error: unknown): number | undefined => (error instanceof ApiError ? error.line : undefined)

export function Screen({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · barstock`
  }, [title])
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">{title}</h1>
      {children}
    </section>
  )
}

/** The account's locations to choose from; `exclude` leaves one out (a transfer's destination is not its source). */
export function LocationSelect(props: { value: string; onChange: (value: string) => void; allowAll?: boolean; id?: string; label?: string; exclude?: string }) {
  const locations = useLoad<Location[]>(() => api.locations(), [])
  const id = props.id ?? 'location'
  return (
    <div class="field">
      <label for={id}>{props.label ?? 'Location'}</label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        {props.allowAll && <option value="">All locations</option>}
        {!props.allowAll && <option value="">Choose a location</option>}
        {locations.data
          ?.filter((location) => location.id !== props.exclude)
          .map((location) => (
            <option value={location.id} key={location.id}>
              {location.name}
            </option>
          ))}
      </select>
      <ErrorNote error={locations.error} />
    </div>
  )
}

const NAME_STORAGE = 'barstock.your_name'

/** The name last given on this device: counts, transfers and waste each ask who did it, and it is typed once. */
export const rememberedName = () => localStorage.getItem(NAME_STORAGE) ?? ''
export const rememberName = (name: string) => localStorage.setItem(NAME_STORAGE, name.trim())

/** Who did it: a person's name, filled with the one last given on this device. */
export function NameField(props: { id: string; label?: string; value: string; onChange: (value: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label ?? 'Your name'}</label>
      <input id={props.id} required autocomplete="name" value={props.value} onInput={(event) => props.onChange(event.currentTarget.value)} />
    </div>
  )
}

/** A typed quantity as a number: a decimal comma is read as a point; undefined when it is not a number. */
export function parseQuantity(text: string): number | undefined {
  const value = Number(text.trim().replace(',', '.'))
  return text.trim() === '' || !Number.isFinite(value) ? undefined : value
}

export const NOT_A_NUMBER = 'Enter a number, such as 3 or 2.5'

const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
const quantity = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 })

export const formatMoney = (amount: number, currency = '') => `${currency ? currency + ' ' : ''}${money.format(amount)}`
export const formatQuantity = (value: number) => quantity.format(value)
export const formatDate = (timestamp: string | null) => (timestamp ? new Date(timestamp).toLocaleString() : '—')
/** A moment's day on this device's clock, YYYY-MM-DD. */
export const formatDay = (timestamp: string) => {
  const date = new Date(timestamp)
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
}

/** Previous/next over a list's pages; nothing when it has one page. */
export function Pager({ page, totalPages, onPage }: { page: number; totalPages: number; onPage: (page: number) => void }) {
  if (totalPages <= 1) return null
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  )
}

/** A table column: its heading, right-aligned figures, or a heading for screen readers only (an actions column). */
export type Column = string | { label: string; number?: boolean; hidden?: boolean }

const labelOf = (column: Column) => (typeof column === 'string' ? { label: column } : column)

/**
 * A table with its column headings; the rows are the children. On a narrow screen each row stacks into a
 * card (styles.css), every cell under its column's name, which this writes on the cells as data-label:
 * nothing is scrolled sideways or cut off.
 */
export function DataTable({ columns, caption, children }: { columns: Column[]; caption?: string; children: ComponentChildren }) {
  const body = useRef<HTMLTableSectionElement>(null)
  useLayoutEffect(() => {
    for (const row of Array.from(body.current?.rows ?? [])) {
      Array.from(row.cells).forEach((cell, index) => {
        const column = columns[index]
        if (column && !labelOf(column).hidden && cell.tagName === 'TD') cell.dataset.label = labelOf(column).label
      })
    }
  })
  return (
    <div class="table-wrap">
      <table>
        {caption && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => {
              const { label, number, hidden } = labelOf(column)
              return (
                <th scope="col" key={label} class={number ? 'number' : undefined}>
                  {hidden ? <span class="visually-hidden">{label}</span> : label}
                </th>
              )
            })}
          </tr>
        </thead>
        <tbody ref={body}>{children}</tbody>
      </table>
    </div>
  )
}
