/**
 * An example value for a JSON schema, composed from the examples its fields carry: what the reference
 * shows as an operation's example request or answer when the route gives none.
 */

type Schema = {
  $ref?: string
  examples?: unknown[]
  example?: unknown
  const?: unknown
  enum?: unknown[]
  default?: unknown
  type?: string | string[]
  properties?: Record<string, Schema>
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
}

function referenced(ref: string, schemas: Record<string, object>): Schema | undefined {
  const name = ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined
  return name === undefined ? undefined : schemas[name]
}

/**
 * The schema's own example, else its const, enum's first value or default, else an object of its
 * properties' examples or an array of one item's; undefined when some part has no example.
 */
export function exampleOf(schema: object, schemas: Record<string, object>): unknown {
  const node = schema as Schema
  if (node.$ref) {
    const target = referenced(node.$ref, schemas)
    return target ? exampleOf(target, schemas) : undefined
  }
  if (node.examples?.length) return node.examples[0]
  if (node.example !== undefined) return node.example
  if (node.const !== undefined) return node.const
  if (node.enum?.length) return node.enum[0]
  if (node.default !== undefined) return node.default
  const alternatives = node.anyOf ?? node.oneOf
  if (alternatives) {
    // The first alternative that is not null: a nullable field shows its value.
    const shown = alternatives.find((alternative) => alternative.type !== 'null') ?? alternatives[0]
    return shown ? exampleOf(shown, schemas) : undefined
  }
  if (node.properties) {
    const entries = Object.entries(node.properties).map(([name, property]) => [name, exampleOf(property, schemas)] as const)
    if (entries.some(([, value]) => value === undefined)) return undefined
    return Object.fromEntries(entries)
  }
  if (node.items) {
    const item = exampleOf(node.items, schemas)
    return item === undefined ? undefined : [item]
  }
  return node.type === 'null' ? null : undefined
}
