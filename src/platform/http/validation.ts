import type { FastifySchemaCompiler } from 'fastify'
import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'

const shared: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false }

function withFormats(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  type Plugin = (ajv: Ajv) => Ajv
  const module = addFormats as unknown as Plugin & { default?: Plugin }
  ;(module.default ?? module)(ajv)
  return ajv
}

// Bodies are JSON and keep their types: "5" is not a number. Query strings and path parameters are text,
// so they are coerced ("?page=2", "?low_stock=true").
const bodyAjv = withFormats(new Ajv({ ...shared, coerceTypes: false }))
const textAjv = withFormats(new Ajv({ ...shared, coerceTypes: 'array' }))

/** Validates each part of a request with the Ajv instance that fits it. */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>
}
