/** Locations' front door: all that other rooms (and the wiring) may use of locations. */
export { type Location } from './locations.schemas.js'
export { allLocations, getLocation, listLocations } from './locations.service.js'
export { locationErrors } from './locations.errors.js'

// For the wiring.
export { locationRoutes } from './locations.routes.js'
