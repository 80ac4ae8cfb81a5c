import { defineError } from '../platform/errors.js'

export const posErrors = {
  posNotSupported: defineError('pos_not_supported', 400, 'POS type %s is not supported; supported: %s'),
  invalidCredentials: defineError('invalid_credentials', 400, '%s'),
  connectionFailed: defineError('connection_failed', 502, 'Could not reach the %s POS: %s'),
  syncInProgress: defineError('sync_in_progress', 409, 'Sync %s is already running on connection %s'),
  mappingNotFound: defineError('mapping_not_found', 404, 'No mapping for POS item %s on connection %s'),
  autoMapFailed: defineError('auto_map_failed', 400, '%s'),
  connectionNotFound: defineError('connection_not_found', 404, 'POS connection %s does not exist'),
  syncNotFound: defineError('sync_not_found', 404, 'Sync run %s does not exist'),
  pushNotSupported: defineError('push_not_supported', 400, 'The %s POS sends no pushes barstock can verify; its connections are polled'),
  pushNotEnabled: defineError('push_not_enabled', 409, 'POS connection %s does not take pushes: %s'),
  invalidPushSignature: defineError('invalid_push_signature', 401, 'Push to POS connection %s refused: %s'),
}
