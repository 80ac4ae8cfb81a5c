import { defineError } from '../platform/errors.js'

export const analyticsErrors = {
  invalidDateRange: defineError('invalid_date_range', 400, '%s'),
  insufficientData: defineError('insufficient_data', 400, '%s'),
  forecastUnavailable: defineError('forecast_unavailable', 400, '%s'),
  staffNotFound: defineError('staff_not_found', 404, 'Staff member %s does not exist'),
}
