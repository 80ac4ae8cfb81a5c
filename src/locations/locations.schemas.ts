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
  description: 'Local time (HH:MM) at which the business day ends, default 04:00: a sale at 01:30 belongs to the previous day',
})

const countryDescription =
  'ISO 3166-1 alpha-2 code of the country the location is in (two uppercase letters, e.g. US, GB, DE); forecasts list the public holidays of this country as events. null: not set, no holidays'
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: countryDescription, examples: ['US'] })

export const Location = Type.Object({
  id: Type.String(),
  name: Type.String(),
  timezone: Type.String(),
  business_day_cutoff: Type.String(),
  country: Type.Union([Type.String(), Type.Null()], { description: countryDescription }),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Location = Static<typeof Location>

export const CreateLocationBody = Type.Object(
  {
    id: LocationId,
    name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK }),
    timezone: Type.Optional(TimeZone),
    business_day_cutoff: Type.Optional(Cutoff),
    country: Type.Optional(Type.Union([Country, Type.Null()])),
  },
  { additionalProperties: false },
)
export type CreateLocationBody = Static<typeof CreateLocationBody>

export const UpdateLocationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    timezone: Type.Optional(TimeZone),
    business_day_cutoff: Type.Optional(Cutoff),
    country: Type.Optional(Type.Union([Country, Type.Null()], { description: `${countryDescription}. null clears it` })),
  },
  { additionalProperties: false },
)
export type UpdateLocationBody = Static<typeof UpdateLocationBody>

export const LocationParams = Type.Object({ id: Type.String() })
export const ListLocationsQuery = Type.Object(PageQuery, { additionalProperties: false })
