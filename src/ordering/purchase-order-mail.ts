import { moneyOut, quantityOut, unitCostOut } from '../platform/decimal.js'
import type { PurchaseOrder } from './purchase-orders.repository.js'

export interface MailContent {
  subject: string
  text: string
  html: string
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string)

const money = (value: string) => moneyOut(value).toFixed(2)
const dateOf = (value: Date | null) => (value ? value.toISOString().slice(0, 10) : 'not set')

/** The purchase order as an e-mail a distributor's sales desk can read: a plain-text and an HTML body. */
export function composePurchaseOrder(po: PurchaseOrder): MailContent {
  const reference = po.confirmation_number ?? po.id
  const deliverTo = po.location_name ? `${po.location_name} (${po.location_id})` : po.location_id
  const header = [
    ['Purchase order', reference],
    ['Order id', po.id],
    ['Account number', po.distributor_code],
    ['Deliver to', deliverTo],
    ['Submitted', dateOf(po.submitted_at)],
    ['Requested delivery by', dateOf(po.estimated_delivery)],
  ] as const
  const rows = po.lines.map((line) => ({
    item: `${line.name} (SKU ${line.sku})`,
    quantity: `${quantityOut(line.quantity)} ${line.unit}`,
    price: unitCostOut(line.unit_price).toFixed(2),
    total: money(line.total),
  }))

  const text = [
    `Hello ${po.distributor_name},`,
    '',
    'Please supply the following order.',
    '',
    ...header.map(([label, value]) => `${label}: ${value}`),
    '',
    ...rows.map((row) => `- ${row.item}: ${row.quantity} at ${row.price} = ${row.total}`),
    '',
    `Order total: ${money(po.total_amount)}`,
    ...(po.notes ? ['', `Notes: ${po.notes}`] : []),
    '',
    `Please quote ${reference} on your confirmation and invoice.`,
  ].join('\n')

  const cell = (value: string, align = 'left') => `<td style="padding:4px 8px;text-align:${align}">${escapeHtml(value)}</td>`
  const html = `<!doctype html>
<html><body style="font-family:sans-serif">
<p>Hello ${escapeHtml(po.distributor_name)},</p>
<p>Please supply the following order.</p>
<table>${header.map(([label, value]) => `<tr><th style="text-align:left;padding-right:12px">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>
<table style="border-collapse:collapse;margin-top:12px" border="1">
<thead><tr><th>Item</th><th>Quantity</th><th>Unit price</th><th>Total</th></tr></thead>
<tbody>${rows.map((row) => `<tr>${cell(row.item)}${cell(row.quantity, 'right')}${cell(row.price, 'right')}${cell(row.total, 'right')}</tr>`).join('')}</tbody>
<tfoot><tr><th colspan="3" style="text-align:right;padding:4px 8px">Order total</th>${cell(money(po.total_amount), 'right')}</tr></tfoot>
</table>
${po.notes ? `<p>Notes: ${escapeHtml(po.notes)}</p>` : ''}
<p>Please quote ${escapeHtml(reference)} on your confirmation and invoice.</p>
</body></html>`

  return { subject: `Purchase order ${reference} from barstock`, text, html }
}
