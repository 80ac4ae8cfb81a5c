import type { Timestamp } from '../../platform/db/database.js'

/** The set-up request a vendor app's one push URL received last (Clover's verification code), per vendor. */
export interface PosAppPushSetupTable {
  pos_type: string
  verification_code: string
  verification_code_received_at: Timestamp
}

declare module '../../platform/db/database.js' {
  interface Database {
    pos_app_push_setups: PosAppPushSetupTable
  }
}
