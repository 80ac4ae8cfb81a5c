import type { FastifySchemaCompiler } from 'fastify'
import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import { isStorableTime } from '../db/database.js'

const shared: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false }

function withFormats(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  type Plugin = (ajv: Ajv) => Ajv
  const module = addFormats as unknown as Plugin & { default?: Plugin }
  ;(module.default ?? module)(ajv)
  return ajv
}

type DateTimeFormat = { validate: (value: string) => boolean; compare?: (a: string, b: string) => number | undefined }

/**
 * RFC 3339 date-times that also name a time the database can store: a leap second (23:59:60), which no
 * Date holds, and an instant outside years 1 to 9999 (`0000-…`, or `0001-01-01T00:00:00+01:00`) are
 * refused here instead of failing in the database.
 */
function withStorableDateTimes(ajv: Ajv): Ajv {
  const rfc3339 = ajv.formats['date-time'] as DateTimeFormat
  return ajv.addFormat('date-time', { ...rfc3339, validate: (value: string) => rfc3339.validate(value) && isStorableTime(Date.parse(value)) })
}

// Bodies are JSON and keep their types: "5" is not a number. Query strings and path parameters are text,
// so they are coerced ("?page=2", "?low_stock=true").
const bodyAjv = withStorableDateTimes(withFormats(new Ajv({ ...shared, coerceTypes: false })))
const textAjv = withStorableDateTimes(withFormats(new Ajv({ ...shared, coerceTypes: 'array' })))

/** Validates each part of a request with the Ajv instance that fits it. */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>
}
