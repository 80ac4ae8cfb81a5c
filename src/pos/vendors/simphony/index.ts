import type { PosVendor } from '../adapter.js'
import { createSimphonyAdapter, SimphonyCredentials, simphonyProductionBaseUrl } from './simphony.adapter.js'
import { createSimphonySimulator } from './simphony.simulator.js'

export const simphonyVendor: PosVendor = {
  posType: 'simphony',
  credentialsSchema: SimphonyCredentials,
  exampleCredentials: {
    auth_server_url: 'https://simphony-idm.example.com',
    app_server_url: 'https://simphony-bi.example.com',
    client_id: 'QkFSU1RPQ0suZXhhbXBsZQ',
    username: 'barstock-api',
    password: 'example-password-0001',
    org_short_name: 'EXBAR',
    loc_ref: 'BAR01',
  },
  secretField: 'password',
  productionBaseUrl: (credentials) => simphonyProductionBaseUrl(credentials as SimphonyCredentials),
  createAdapter: createSimphonyAdapter,
  createSimulator: createSimphonySimulator,
}
