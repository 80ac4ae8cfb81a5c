import type { PosVendor } from '../adapter.js'
import { createSpotOnAdapter, SPOTON_PRODUCTION_BASE_URL, SpotOnCredentials } from './spoton.adapter.js'
import { createSpotOnSimulator } from './spoton.simulator.js'

export const spotonVendor: PosVendor = {
  posType: 'spoton',
  credentialsSchema: SpotOnCredentials,
  exampleCredentials: { api_key: 'spoton-example-api-key-0001', location_id: 'loc-example-0001' },
  secretField: 'api_key',
  productionBaseUrl: () => SPOTON_PRODUCTION_BASE_URL,
  createAdapter: createSpotOnAdapter,
  createSimulator: createSpotOnSimulator,
}
