/** Settings' front door: all that other rooms (and the wiring) may use of settings. */
export { getSettings } from './settings.service.js'

// For the wiring.
export { settingsRoutes } from './settings.routes.js'
