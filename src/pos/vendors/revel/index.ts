import type { PosVendor } from '../adapter.js'
import { createRevelAdapter, parseRevelPush, RevelCredentials, revelProductionBaseUrl } from './revel.adapter.js'
import { createRevelSimulator } from './revel.simulator.js'

export const revelVendor: PosVendor = {
  posType: 'revel',
  credentialsSchema: RevelCredentials,
  exampleCredentials: { subdomain: 'examplebar', api_key: 'revel-example-key', api_secret: 'revel-example-secret-0001', establishment_id: '1' },
  secretField: 'api_secret',
  productionBaseUrl: (credentials) => revelProductionBaseUrl(credentials as RevelCredentials),
  createAdapter: createRevelAdapter,
  createSimulator: createRevelSimulator,
  parsePush: parseRevelPush,
}
