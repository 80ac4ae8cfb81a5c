import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { ErrorNote, type Loaded, formatDate } from './ui.js'

/** How many of the latest records a screen lists. */
export const RECENT_RECORDS = 20

/** The latest records of a screen (transfers, waste entries), newest first, one card each. */
export function RecentRecords<T>(props: { id: string; title: string; records: Loaded<T[]>; empty: string; children: (record: T) => ComponentChildren }) {
  const { data, error } = props.records
  return (
    <section aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <ErrorNote error={error} />
      {data?.length === 0 && <p>{props.empty}</p>}
      {data && data.length > 0 && <ul class="records">{data.map(props.children)}</ul>}
    </section>
  )
}

/**
 * One recorded movement of stock: what, who and when, its lines, and Void while it stands. Voiding
 * reverses its movements; the record stays, marked voided.
 */
export function RecordCard(props: {
  id: string
  heading: ComponentChildren
  by: string
  at: string
  voidedAt: string | null
  onVoid: () => Promise<unknown>
  onVoided: () => void
  children: ComponentChildren
}) {
  const [error, setError] = useState<unknown>(undefined)
  const headingId = `${props.id}-heading`
  async function voidRecord() {
    if (!confirm('Void this record? Its stock movements are reversed.')) return
    setError(undefined)
    try {
      await props.onVoid()
      props.onVoided()
    } catch (failure) {
      setError(failure)
    }
  }
  return (
    <li class={props.voidedAt ? 'record voided' : 'record'}>
      <p class="record-heading" id={headingId}>
        {props.heading} {props.voidedAt && <span class="badge voided">Voided</span>}
      </p>
      <p class="sub">
        By {props.by}, {formatDate(props.at)}
      </p>
      {props.children}
      {!props.voidedAt && (
        <button type="button" class="danger" aria-describedby={headingId} onClick={() => void voidRecord()}>
          Void
        </button>
      )}
      <ErrorNote error={error} />
    </li>
  )
}
