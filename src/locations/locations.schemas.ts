import { type Static, Type } from 'typebox'
import { NOT_BLANK, PageQuery, Timestamp } from '../platform/http/schemas.js'

export const LocationId = Type.String({
  pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
  description: 'A slug you choose: lowercase letters, digits, _ and -, up to 63 characters',
  examples: ['main_bar'],
})

const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, default UTC', examples: ['America/New_York'] })
const Cutoff = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'Local time (HH:MM, 00:00 to 23:59) at which the business day ends, default 04:00: a sale at 01:30 belongs to the previous day',
  examples: ['04:00'],
})

const countryDescription =
  'ISO 3166-1 alpha-2 code of the country the location is in (two uppercase letters, e.g. US, GB, DE); forecasts list the public holidays of this country as events. null: not set, no holidays'
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: countryDescription, examples: ['US'] })

export const Location = Type.Object({
  id: Type.String({ description: 'The location’s slug', examples: ['main_bar'] }),
  name: Type.String({ description: 'Its name', examples: ['Main Bar'] }),
  timezone: Type.String({ description: 'IANA time zone: business days and reports use it', examples: ['America/New_York'] }),
  business_day_cutoff: Type.String({ description: 'Local time (HH:MM) at which the business day ends', examples: ['04:00'] }),
  country: Type.Union([Type.String(), Type.Null()], { description: countryDescription, examples: ['US'] }),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Location = Static<typeof Location>

export const CreateLocationBody = Type.Object(
  {
    id: LocationId,
    name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK, description: 'Its name, 1 to 200 characters', examples: ['Main Bar'] }),
    timezone: Type.Optional(TimeZone),
    business_day_cutoff: Type.Optional(Cutoff),
    country: Type.Optional(Type.Union([Country, Type.Null()], { description: `${countryDescription}. Default null` })),
  },
  { additionalProperties: false },
)
export type CreateLocationBody = Static<typeof CreateLocationBody>

export const UpdateLocationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Its name, 1 to 200 characters', examples: ['Rooftop Bar'] })),
    timezone: Type.Optional(TimeZone),
    business_day_cutoff: Type.Optional(Cutoff),
    country: Type.Optional(Type.Union([Country, Type.Null()], { description: `${countryDescription}. null clears it` })),
  },
  { additionalProperties: false },
)
export type UpdateLocationBody = Static<typeof UpdateLocationBody>

export const LocationParams = Type.Object({ id: Type.String({ description: 'The location’s slug', examples: ['main_bar'] }) })
export const ListLocationsQuery = Type.Object(PageQuery, { additionalProperties: false })

const ShelfItemIds = Type.Array(Type.String({ minLength: 1, description: 'An inventory item at the location', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }), {
  maxItems: 5000,
  description: 'Item ids in the order they stand on the shelves, first shelf first; each an item at this location, at most once',
})

export const ShelfOrder = Type.Object(
  {
    location: Type.String({ description: 'The location’s slug', examples: ['main_bar'] }),
    item_ids: ShelfItemIds,
    updated_at: Type.Union([Timestamp, Type.Null()], { description: 'When it was last saved; null: never (name order)' }),
  },
  {
    description:
      'The order a location’s items are counted in, shared by every device of the account (the console’s count screen follows it). Items not listed come after, in name order; items deleted since it was saved are left out of the answer',
  },
)
export type ShelfOrder = Static<typeof ShelfOrder>

export const ShelfOrderBody = Type.Object({ item_ids: ShelfItemIds }, { additionalProperties: false })
export type ShelfOrderBody = Static<typeof ShelfOrderBody>
