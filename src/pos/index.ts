/**
 * POS's front door: all that other rooms (and the wiring) may use of pos. Its concern folders
 * (connections/, sync/, mappings/, sales/, push/) and its machinery (auto-map/, vendors/, simulation/)
 * are its inside.
 */

// Analytics' "similar unmapped sales" uses the auto-mapper's name matching.
export { type Match, NameMatcher } from './auto-map/name-matcher.js'
export { defaultConversionFor } from './auto-map/default-conversion.js'

// The sales history reports read (analytics).
export { mappedSaleLineQuantity, SALE_COLUMNS_ROLLED_UP, type SaleLine, saleLinesById, saleLinesInSpans, unmappedSaleLines } from './sales/sales-history.js'
export { staffMembers } from './sales/staff-history.js'

// For the wiring.
export { PosGateway } from './connections/pos-gateway.js'
export { connectionsRoutes } from './connections/connections.routes.js'
export { closeSandboxSimulators } from './connections/sandbox-simulators.js'
export { mappingsRoutes } from './mappings/mappings.routes.js'
export { syncRoutes } from './sync/sync.routes.js'
export { startPosScheduler, startPosSyncWorker } from './sync/sync-worker.js'
export { posEvents } from './sync/sync.events.js'
export { posPushRoutes } from './push/push.routes.js'
export { PUSH_PATH_PREFIX } from './push/push-setup.js'
export { salesRoutes } from './sales/sales.routes.js'

// For `barstock archive`: the months a sync run is still storing lines into.
export { syncLinesInFlightBefore } from './sync/lines-in-flight.js'
