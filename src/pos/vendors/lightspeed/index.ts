import type { PosVendor } from '../../adapter.js'
import { LIGHTSPEED_PRODUCTION_BASE_URL, LightspeedAdapter, LightspeedCredentials, type LightspeedConfig } from './lightspeed.adapter.js'
import { LIGHTSPEED_MAX_PAGE_SIZE } from './lightspeed.client.js'
import { createLightspeedSimulator } from './lightspeed.simulator.js'

export const DEFAULT_LIGHTSPEED_CONFIG: LightspeedConfig = {
  pageSize: LIGHTSPEED_MAX_PAGE_SIZE,
  staffPageSize: 100,
  receiptRoles: { sales: ['SALE', 'SPLIT'], corrections: ['REFUND', 'RECALL', 'CANCEL', 'VOID'] },
  correctionLookbackDays: 30,
}

/** A Lightspeed PosVendor with some settings overridden (tests use small pages). */
export function createLightspeedVendor(overrides: Partial<LightspeedConfig> = {}): PosVendor {
  const config = { ...DEFAULT_LIGHTSPEED_CONFIG, ...overrides }
  return {
    posType: 'lightspeed',
    credentialsSchema: LightspeedCredentials,
    exampleCredentials: {
      client_id: 'barstock-sandbox',
      client_secret: 'k8Jd2nQx7Lw4Pz9Rt3Vb6Ym1',
      refresh_token: 'rt-3f9a1c7e5b2d4f6a8c0e',
      business_location_id: '45454565682155',
    },
    secretField: 'client_secret',
    productionBaseUrl: () => LIGHTSPEED_PRODUCTION_BASE_URL,
    createAdapter: (options) => new LightspeedAdapter(options, config),
    createSimulator: createLightspeedSimulator,
  }
}

export const lightspeedVendor: PosVendor = createLightspeedVendor()
