import { writeFile } from 'node:fs/promises'
import { buildOpenApiDocument } from '../../../src/cli/openapi-document.js'
import { generateClientSchema, SCHEMA_FILE } from './schema-generator.js'

// `npm run client`: rewrites the client's types from the document the current code serves.
await writeFile(SCHEMA_FILE, await generateClientSchema(await buildOpenApiDocument()))
console.log(`wrote ${SCHEMA_FILE}`)
