import type { RevelResource } from './revel.resources.js'

/**
 * The query parameters the Revel simulator accepts, resource by resource, and what its Tastypie
 * filters (`field` or `field__lookup`) mean. Establishment, Product and Order take what revel.yml
 * documents: its parameters, with the Django lookups its description names. OrderItem, Modifier,
 * ProductCategory and Employee are not in revel.yml; they take what docs/pos-vendors.md lists as
 * assumed. Anything else is refused with a 400, so an adapter that sends a wrong field fails a test.
 */

type FieldKind = 'text' | 'number' | 'boolean' | 'date' | 'reference'
type Lookup = 'exact' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'range' | 'isnull'

const LOOKUPS: Record<FieldKind, readonly Lookup[]> = {
  text: ['exact', 'in'],
  reference: ['exact', 'in'],
  boolean: ['exact'],
  number: ['exact', 'in', 'gt', 'gte', 'lt', 'lte', 'range'],
  date: ['exact', 'gt', 'gte', 'lt', 'lte', 'range', 'isnull'],
}

interface ResourceQueries {
  filters: Record<string, FieldKind>
  /** Fields `order_by` takes, each also with a leading `-` (descending). */
  orderBy: readonly string[]
}

const QUERIES: Record<RevelResource, ResourceQueries> = {
  Establishment: { filters: {}, orderBy: [] },
  Product: {
    filters: { name: 'text', barcode: 'text', sku: 'text', category: 'reference', active: 'boolean', establishment: 'reference', display_online: 'boolean' },
    orderBy: ['sorting', 'id'],
  },
  Order: {
    filters: {
      id: 'number',
      uuid: 'text',
      establishment: 'reference',
      customer: 'reference',
      closed: 'boolean',
      web_order: 'boolean',
      created_date: 'date',
      updated_date: 'date',
    },
    orderBy: ['updated_date', 'pickup_time', 'running_tax_number', 'id', 'created_date'],
  },
  // ⚠ Not in revel.yml: the filters public integrations use (docs/pos-vendors.md).
  OrderItem: { filters: { order: 'reference', quantity: 'number', created_date: 'date', voided_date: 'date' }, orderBy: ['id', 'created_date'] },
  Modifier: { filters: { active: 'boolean' }, orderBy: ['id'] },
  ProductCategory: { filters: {}, orderBy: ['id'] },
  Employee: { filters: { active: 'boolean' }, orderBy: ['id'] },
}

/** Paging and field selection (every list), and the key and secret as revel.yml allows them in the query. */
const COMMON_PARAMETERS = new Set(['limit', 'offset', 'fields', 'order_by', 'api_key', 'api_secret'])

/** One filter, its value already read as its field's kind (dates as epoch ms, references as ids). */
export interface Filter {
  field: string
  lookup: Lookup
  values: (string | number | boolean | null)[]
}

export interface ListQuery {
  /** null when the query gives none (Revel's default applies). */
  limit: number | null
  offset: number
  fields: string[] | null
  orderBy: { field: string; descending: boolean } | null
  filters: Filter[]
}

/** The query of a list request, or the reason the simulator refuses it (Revel's 400). */
export function readListQuery(resource: RevelResource, params: URLSearchParams): ListQuery | { refused: string } {
  const rules = QUERIES[resource]
  const query: ListQuery = { limit: null, offset: 0, fields: null, orderBy: null, filters: [] }
  for (const [name, value] of params) {
    const refusal = COMMON_PARAMETERS.has(name) ? readCommon(query, rules, name, value) : readFilter(query, rules, name, value)
    if (refusal) return { refused: `${resource}: ${refusal}` }
  }
  return query
}

function readCommon(query: ListQuery, rules: ResourceQueries, name: string, value: string): string | undefined {
  switch (name) {
    case 'limit':
    case 'offset': {
      if (!/^\d+$/.test(value)) return `${name} must be a non-negative integer, not ${JSON.stringify(value)}`
      if (name === 'limit') query.limit = Number(value)
      else query.offset = Number(value)
      return
    }
    case 'fields':
      query.fields = value.split(',').filter(Boolean)
      return
    case 'order_by': {
      const field = value.replace(/^-/, '')
      if (!rules.orderBy.includes(field)) return `order_by does not take ${JSON.stringify(value)}`
      query.orderBy = { field, descending: value.startsWith('-') }
      return
    }
  }
}

function readFilter(query: ListQuery, rules: ResourceQueries, name: string, text: string): string | undefined {
  const [field = '', lookup = 'exact', ...rest] = name.split('__')
  const kind = rules.filters[field]
  if (!kind || rest.length > 0) return `${JSON.stringify(name)} is not a field it filters on`
  if (!LOOKUPS[kind].includes(lookup as Lookup)) return `${JSON.stringify(field)} does not allow the ${JSON.stringify(lookup)} lookup`
  const texts = lookup === 'in' || lookup === 'range' ? text.split(',') : [text]
  if (lookup === 'range' && texts.length !== 2) return `${name} takes two values`
  const values = texts.map((item) => (lookup === 'isnull' ? readBoolean(item) : readValue(kind, item)))
  if (values.some((value) => value === undefined)) return `${name} cannot be ${JSON.stringify(text)}`
  query.filters.push({ field, lookup: lookup as Lookup, values: values as Filter['values'] })
}

function readBoolean(text: string): boolean | undefined {
  return text === 'true' ? true : text === 'false' ? false : undefined
}

/** A filter value or an object's field as its kind compares it; undefined when it is not one. */
function readValue(kind: FieldKind, value: unknown): string | number | boolean | null | undefined {
  if (value === null) return null
  switch (kind) {
    case 'text':
      return String(value)
    case 'boolean':
      return typeof value === 'boolean' ? value : readBoolean(String(value))
    case 'number': {
      const number = Number(value)
      return value !== '' && Number.isFinite(number) ? number : undefined
    }
    case 'date': {
      const time = Date.parse(String(value))
      return Number.isNaN(time) ? undefined : time
    }
    case 'reference': {
      const id = /^(?:\/resources\/[A-Za-z]+\/)?(\d+)\/?$/.exec(String(value))?.[1]
      return id === undefined ? undefined : Number(id)
    }
  }
}

/** Whether a rendered object passes every filter of the query. */
export function matchesFilters(resource: RevelResource, object: Record<string, unknown>, filters: readonly Filter[]): boolean {
  return filters.every((filter) => {
    const value = readValue(QUERIES[resource].filters[filter.field] as FieldKind, object[filter.field])
    const [first, second] = filter.values
    switch (filter.lookup) {
      case 'exact':
        return value === first
      case 'in':
        return filter.values.includes(value ?? null)
      case 'isnull':
        return (value === null || value === undefined) === first
      case 'range':
        return typeof value === 'number' && value >= (first as number) && value <= (second as number)
      default:
        return typeof value === 'number' && compare(filter.lookup, value, first as number)
    }
  })
}

function compare(lookup: 'gt' | 'gte' | 'lt' | 'lte', value: number, bound: number): boolean {
  return lookup === 'gt' ? value > bound : lookup === 'gte' ? value >= bound : lookup === 'lt' ? value < bound : value <= bound
}

/** The span [from, to] (epoch ms) a date field is limited to by the query's filters on it. */
export function dateBounds(filters: readonly Filter[], field: string): { from: number; to: number } {
  let from = -Infinity
  let to = Infinity
  for (const filter of filters.filter((candidate) => candidate.field === field)) {
    const [first, second] = filter.values as number[]
    if (['exact', 'gt', 'gte', 'range'].includes(filter.lookup)) from = Math.max(from, first as number)
    if (['exact', 'lt', 'lte'].includes(filter.lookup)) to = Math.min(to, first as number)
    if (filter.lookup === 'range') to = Math.min(to, second as number)
  }
  return { from, to }
}

/** The ids a reference or id field is limited to (`field=` or `field__in=`), or null when it is not. */
export function idsFilteredOn(filters: readonly Filter[], field: string): number[] | null {
  const filter = filters.find((candidate) => candidate.field === field && (candidate.lookup === 'exact' || candidate.lookup === 'in'))
  return filter ? (filter.values as number[]) : null
}

/** Objects in the order `order_by` asks for (by id when it asks none). */
export function sortObjects<T extends Record<string, unknown>>(objects: T[], orderBy: ListQuery['orderBy']): T[] {
  const { field, descending } = orderBy ?? { field: 'id', descending: false }
  const direction = descending ? -1 : 1
  return objects.sort((a, b) => {
    const [x, y] = [a[field], b[field]] as [number | string, number | string]
    return x === y ? 0 : x < y ? -direction : direction
  })
}
