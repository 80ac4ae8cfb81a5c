import type { Tenant, Trx } from '../../platform/db/database.js'
import { MONEY_DECIMALS, scaledOut, sumScaled } from '../../platform/decimal.js'
import { enqueue } from '../../platform/outbox.js'
import { type CountObserver, itemsInScope, type RecordedCount } from '../../inventory/index.js'
import { getSettings } from '../../settings/index.js'
import '../analytics.events.js'
import { forgetWindowsSpanning } from './count-windows.repository.js'
import { cataloguesIn, causesOf, grossOf, itemOut, scoredWindows } from './variance.service.js'
import { COST_PLACES, varianceRate } from './variance-windows.js'

/**
 * The variance of each counted item since its previous count, by the report's rules: variance.detected
 * for each item above the account's threshold (severity high above twice it), and
 * variance.threshold_exceeded when the count's gross loss rate (Σ losses' cost ÷ Σ expected cost × 100)
 * is above it, with that rate as variance_rate and the net loss as total_loss. Runs in the count's
 * transaction, so the events exist exactly when the count does. The windows it measures are stored for
 * reports; stored windows the count falls inside (a back-dated count) are forgotten: they are two now.
 */
export const emitCountVariance: CountObserver = async (trx, tenant, count) => {
  await forgetWindowsSpanning(trx, count.itemIds, count.countedAt)
  const threshold = (await getSettings(trx, tenant)).variance_threshold
  const items = await itemsInScope(trx, tenant, { location: count.location })
  // Each counted item's window from its count before this one; the cause rules' earlier windows for the flagged (scoredWindows).
  const choiceFor = (chosen: { id: string }[]) => ({ kind: 'count' as const, itemIds: chosen.map((item) => item.id), countId: count.countId, countedAt: count.countedAt })
  const { scored } = await scoredWindows(trx, tenant, items, choiceFor(count.itemIds.map((id) => ({ id }))), threshold)
  if (scored.length === 0) return
  const causes = await causesOf(trx, tenant, scored, threshold, choiceFor, cataloguesIn({ location: count.location }, items))
  const entries = scored.map((entry) => ({ entry, out: itemOut(entry, causes.get(entry.item.id) ?? []) }))
  for (const { entry, out } of entries.filter(({ entry }) => entry.aboveThreshold)) {
    const { answer } = out
    await enqueue(trx, tenant, 'variance.detected', {
      item_id: answer.inventory_item_id,
      name: answer.name,
      expected_consumption: answer.expected_consumption,
      actual_consumption: answer.actual_consumption,
      variance: answer.variance,
      variance_percentage: answer.variance_percentage,
      estimated_loss: answer.estimated_loss,
      severity: entry.highVariance ? 'high' : 'medium',
      potential_causes: answer.potential_causes,
    })
  }
  await emitThresholdExceeded(
    trx,
    tenant,
    count,
    threshold,
    entries.map(({ entry, out }) => ({ out, openedAt: entry.window.opening.countedAt })),
  )
}

async function emitThresholdExceeded(
  trx: Trx,
  tenant: Tenant,
  count: RecordedCount,
  threshold: number,
  entries: { out: ReturnType<typeof itemOut>; openedAt: Date }[],
): Promise<void> {
  const loss = sumScaled(entries.map(({ out }) => out.loss))
  const expectedCost = sumScaled(entries.map(({ out }) => out.expectedCost))
  // On the gross loss rate (DECISIONS): gains elsewhere in the count (a move nobody recorded) cannot hide a loss.
  const rate = varianceRate(grossOf(entries.map(({ out }) => out)).grossLoss, expectedCost)
  if (!(rate > threshold)) return
  const openedAt = new Date(Math.min(...entries.map(({ openedAt }) => openedAt.getTime())))
  await enqueue(trx, tenant, 'variance.threshold_exceeded', {
    period: `${openedAt.toISOString().slice(0, 10)}/${count.countedAt.toISOString().slice(0, 10)}`,
    variance_rate: rate,
    threshold,
    total_loss: scaledOut(loss, COST_PLACES, MONEY_DECIMALS),
    location: count.location,
  })
}
