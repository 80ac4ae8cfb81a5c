import { defineError } from '../platform/errors.js'

export const locationErrors = {
  locationNotFound: defineError('location_not_found', 404, 'Location %s does not exist'),
  duplicateLocation: defineError('duplicate_location', 409, 'Location %s already exists'),
  locationInUse: defineError('location_in_use', 409, 'Location %s still holds %s inventory items; move or delete them first'),
}
