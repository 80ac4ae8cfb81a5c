/**
 * POS's front door: all that other rooms (and the wiring) may use of pos. Its sub-folders (auto-map/,
 * vendors/, simulation/) are its inside.
 */

// Analytics' "similar unmapped sales" uses the auto-mapper's name matching.
export { type Match, NameMatcher } from './auto-map/name-matcher.js'
export { defaultConversionFor } from './auto-map/default-conversion.js'

// The sales history reports read (analytics).
export { mappedSaleLineQuantity, SALE_COLUMNS_ROLLED_UP, type SaleLine, saleLinesById, saleLinesInSpans, unmappedSaleLines } from './sales-history.js'
export { staffMembers } from './staff-history.js'

// For the wiring.
export { PosGateway } from './pos-gateway.js'
export { posRoutes } from './pos.routes.js'
export { posPushRoutes } from './push.routes.js'
export { PUSH_PATH_PREFIX } from './push-setup.js'
export { salesRoutes } from './sales.routes.js'
export { closeSandboxSimulators } from './sandbox-simulators.js'
export { startPosScheduler, startPosSyncWorker } from './sync-worker.js'
export { posEvents } from './pos.events.js'
