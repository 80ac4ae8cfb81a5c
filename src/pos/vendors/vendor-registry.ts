import { POS_TYPES, type PosType, type PosVendor } from './adapter.js'
import { cloverVendor } from './clover/index.js'
import { lightspeedVendor } from './lightspeed/index.js'
import { revelVendor } from './revel/index.js'
import { simphonyVendor } from './simphony/index.js'
import { spotonVendor } from './spoton/index.js'
import { squareVendor } from './square/index.js'
import { toastVendor } from './toast/index.js'

/**
 * pos_type → vendor. Each vendor folder's index.ts exports `<type>Vendor`; a vendor joins here once its
 * folder compiles. Nothing else imports a vendor folder.
 */
const VENDORS: Partial<Record<PosType, PosVendor>> = {
  toast: toastVendor,
  square: squareVendor,
  clover: cloverVendor,
  lightspeed: lightspeedVendor,
  spoton: spotonVendor,
  revel: revelVendor,
  simphony: simphonyVendor,
}

/** The vendor of a supported pos_type, or undefined (pos_not_supported). */
export function findVendor(posType: string): PosVendor | undefined {
  return (POS_TYPES as readonly string[]).includes(posType) ? VENDORS[posType as PosType] : undefined
}

/** The pos_type values this build serves. */
export function supportedPosTypes(): PosType[] {
  return POS_TYPES.filter((type) => VENDORS[type] !== undefined)
}
