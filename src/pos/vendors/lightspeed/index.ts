import type { PosVendor } from '../adapter.js'
import { LIGHTSPEED_PRODUCTION_BASE_URL, LightspeedAdapter, LightspeedCredentials, type LightspeedConfig } from './lightspeed.adapter.js'
import { LIGHTSPEED_MAX_PAGE_SIZE } from './lightspeed.client.js'
import { createLightspeedSimulator } from './lightspeed.simulator.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

export const DEFAULT_LIGHTSPEED_CONFIG: LightspeedConfig = {
  pageSize: LIGHTSPEED_MAX_PAGE_SIZE,
  staffPageSize: 100,
  receiptRoles: { sales: ['SALE', 'SPLIT'], corrections: ['REFUND', 'RECALL', 'CANCEL', 'VOID'] },
  correctionLookbackDays: 30,
}

/**
 * ⚠ How far back Lightspeed dates a back-office cancellation is not published ("to the original
 * transaction date"); incremental runs read the last two days again, which covers a correction made the
 * next day (the usual case in a bar's back office).
 */
const BACK_DATED_CORRECTIONS_MS = 2 * DAY_MS

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
    incrementalRereadMs: BACK_DATED_CORRECTIONS_MS,
    createAdapter: (options) => new LightspeedAdapter(options, config),
    createSimulator: createLightspeedSimulator,
  }
}

export const lightspeedVendor: PosVendor = createLightspeedVendor()
