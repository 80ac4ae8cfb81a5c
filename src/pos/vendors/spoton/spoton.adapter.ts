import { type Static, Type } from 'typebox'
import type { PosAdapter, PosAdapterOptions, PosSaleLine, SalesListingProgress, SalesWindow } from '../adapter.js'
import { listByParts } from '../listing-progress.js'
import { SpotOnClient } from './spoton.client.js'
import { toPosProducts, toPosSaleLines, toPosStaff } from './spoton.mapper.js'
import { transportOf } from '../vendor-http.js'

/**
 * SpotOn has no token flow: the location's API key goes on every call, so verifying is reading the
 * location. Orders cannot be paged, only asked for by closing-time ranges of at most 26 hours that end
 * 5 minutes in the past, so a sales window is walked in day-long slices; each slice also brings the
 * orders closed earlier and changed in it (`includeUpdatedActivity`), whose voids are corrections.
 */

export const SpotOnCredentials = Type.Object(
  {
    api_key: Type.String({ minLength: 8, description: 'The location API key SpotOn issues (sent as x-api-key)' }),
    location_id: Type.String({ minLength: 1, description: 'The SpotOn location id the key grants access to' }),
  },
  { additionalProperties: false },
)
export type SpotOnCredentials = Static<typeof SpotOnCredentials>

export const SPOTON_PRODUCTION_BASE_URL = 'https://restaurantapi.spoton.com/posexport/v1'

/** Under the API's 26-hour limit, so a slice never trips it whatever the rounding to whole seconds. */
const SLICE_MS = 24 * 3_600_000
/** The API refuses ranges ending less than 5 minutes ago. */
const EXPORT_LAG_MS = 5 * 60_000

export function createSpotOnAdapter(options: PosAdapterOptions): PosAdapter {
  const credentials = options.credentials as SpotOnCredentials
  const client = new SpotOnClient({
    baseUrl: options.baseUrl,
    apiKey: credentials.api_key,
    locationId: credentials.location_id,
    ...transportOf(options),
  })
  return {
    async verify() {
      await client.getLocation()
    },
    async listProducts() {
      const items = await client.listMenuItems()
      return toPosProducts(items, await client.listReportCategories())
    },
    listSales: (window, progress) => salesBySlice(client, window, progress),
    async listStaff() {
      return toPosStaff(await client.listEmployees())
    },
  }
}

/**
 * The window's sales a slice at a time. A slice is one request answered whole, so a listing resumes at
 * the first slice it had not read (listByParts): the window's slices are cut from its start, the same
 * whenever it is listed, and a slice's answer does not depend on the slices before it.
 */
async function* salesBySlice(client: SpotOnClient, window: SalesWindow, listing?: SalesListingProgress): AsyncIterable<PosSaleLine[]> {
  const spotOnNow = await client.serverNow()
  const slices = exportSlices(window, new Date(spotOnNow.getTime() - EXPORT_LAG_MS))
  yield* listByParts(
    listing,
    slices,
    (slice) => slice.start.toISOString(),
    async (slice) => {
      const lines = toPosSaleLines(await client.listOrdersClosedOrUpdatedBetween(slice.start, slice.end))
      // An order closed in one slice and changed in another comes in both: each line is kept in the slice
      // it is dated in. Slices are widened to whole seconds; keep exactly the asked window.
      return lines.filter((line) => isWithin(line.soldAt, slice) && isWithin(line.soldAt, window))
    },
  )
}

const isWithin = (date: Date, range: SalesWindow) => date >= range.start && date < range.end

/**
 * The window cut into slices the export API accepts: whole seconds (start rounded down, end up),
 * at most SLICE_MS long, and none past `latestEnd`. Sales closed in the last 5 minutes are not read by
 * this call: a later, overlapping window picks them up (line ids are stable, so overlaps never double count).
 */
export function exportSlices(window: SalesWindow, latestEnd: Date): SalesWindow[] {
  const start = Math.floor(window.start.getTime() / 1000) * 1000
  const end = Math.min(Math.ceil(window.end.getTime() / 1000) * 1000, Math.floor(latestEnd.getTime() / 1000) * 1000)
  const slices: SalesWindow[] = []
  for (let from = start; from < end; from += SLICE_MS) {
    slices.push({ start: new Date(from), end: new Date(Math.min(from + SLICE_MS, end)) })
  }
  return slices
}
