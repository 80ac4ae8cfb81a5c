import { defineError } from '../platform/errors.js'

export const inventoryErrors = {
  itemNotFound: defineError('item_not_found', 404, 'Inventory item %s does not exist'),
  invalidQuantity: defineError('invalid_quantity', 400, '%s'),
  invalidUnit: defineError('invalid_unit', 400, 'Unit %s is not one of: %s'),
  duplicateSku: defineError('duplicate_sku', 409, 'SKU %s %s'),
  countNotFound: defineError('count_not_found', 404, 'Inventory count %s does not exist'),
  transferMismatch: defineError('transfer_mismatch', 409, '%s'),
  transferNotFound: defineError('transfer_not_found', 404, 'Transfer %s does not exist'),
  wasteNotFound: defineError('waste_not_found', 404, 'Waste entry %s does not exist'),
}
