import { type Static, Type } from 'typebox'
import { domainMinimum, NUMBER_LIMITS } from '../../platform/http/schemas.js'
export const MAX_IMPORT_LINES = 10_000

export const ImportSalesBody = Type.Object(
  {
    connection_id: Type.String({ description: 'The connection the lines belong to (connection_not_found otherwise)', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    sales: Type.Array(
      Type.Object(
        {
          location: Type.String({ minLength: 1, description: 'The location id the sale happened at (location_not_found otherwise)', examples: ['main_bar'] }),
          pos_item_id: Type.String({ minLength: 1, maxLength: 200, description: 'The POS’s id of the item sold, 1 to 200 characters', examples: ['SQ-ITEM-TITOS-SHOT'] }),
          name: Type.String({ minLength: 1, maxLength: 300, description: 'The POS item’s name, 1 to 300 characters', examples: ["Tito's Vodka Shot"] }),
          quantity: Type.Number({
            ...domainMinimum(0, true),
            maximum: NUMBER_LIMITS.quantity,
            description: 'Units sold, greater than 0 and at most 1,000,000,000, up to 3 decimals',
            examples: [2],
          }),
          unit_price: Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Price of one unit in the account currency, 0 to 1,000,000,000', examples: [9] }),
          sold_at: Type.String({ format: 'date-time', description: 'When it was sold (its business day follows the location’s cutoff)', examples: ['2026-11-22T23:41:00Z'] }),
          line_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'The POS’s id of the line; a line_id seen before on the connection is a duplicate, skipped',
              examples: ['chk-20261122-0193-1'],
            }),
          ),
          staff_id: Type.Optional(Type.String({ maxLength: 200, description: 'Who sold it, the POS’s staff id (staff reports)', examples: ['emp_042'] })),
          staff_name: Type.Optional(Type.String({ maxLength: 200, description: 'That person’s name', examples: ['Jordan Lee'] })),
          check_id: Type.Optional(Type.String({ maxLength: 200, description: 'The check (ticket) the line is on (average ticket in reports)', examples: ['chk-20261122-0193'] })),
          tip: Type.Optional(Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Tip on the line in the account currency, 0 to 1,000,000,000', examples: [3] })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_IMPORT_LINES, description: '1 to 10,000 sale lines' },
    ),
  },
  { additionalProperties: false },
)
export type ImportSalesBody = Static<typeof ImportSalesBody>
export type ImportedSale = ImportSalesBody['sales'][number]

export const ImportSalesResult = Type.Object({
  import_id: Type.String({ description: 'The import’s id, the ledger reference of the stock it took', examples: ['imp_01jd3f6g7h8j9k0m1n2p3q4r5s'] }),
  imported: Type.Integer({ description: 'Lines stored', examples: [1] }),
  duplicates: Type.Integer({ description: 'Lines skipped because their line_id was seen before', examples: [0] }),
  unmapped: Type.Integer({ description: 'Imported lines whose POS item has no mapping yet (they take stock once mapped)', examples: [0] }),
})
export type ImportSalesResult = Static<typeof ImportSalesResult>
