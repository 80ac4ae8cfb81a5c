import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { type Browser, type BrowserContextOptions, type Page, chromium } from 'playwright-core'
import { revokeApiKey } from '../../src/platform/auth/api-keys.js'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { count, daysAgo, salesChannel, sellDaily } from '../analytics/analytics-helpers.js'
import { createDistributor, ok } from '../ordering/fixtures.js'
import { createPosTestContext, SQUARE_CREDENTIALS } from '../pos/pos-helpers.js'

/** Debian's chromium package (.ci/run installs it); CHROMIUM_PATH names another build. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((path) => path && existsSync(path))
const SKIP = CHROMIUM ? false : 'no Chromium installed: `apt-get install -y chromium` (as .ci/run does) to run the console tests'
/** CONSOLE_SCREENSHOTS=docs/console saves each screen there (docs/console.md shows them). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }
const LAPTOP: BrowserContextOptions = { viewport: { width: 1366, height: 900 } }

let ctx: TestContext
let browser: Browser
let base: string

async function screenshot(page: Page, name: string) {
  if (!SCREENSHOTS) return
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** A page of a fresh browser context (its own sessionStorage and localStorage), closed after the test. */
async function openPage(t: { after: (fn: () => Promise<void>) => void }, options = LAPTOP): Promise<Page> {
  const context = await browser.newContext(options)
  context.setDefaultTimeout(10_000)
  t.after(() => context.close())
  return context.newPage()
}

/** Signs in and waits for the stock screen (exact: a role name matches substrings, and "Sign in to barstock" holds "stock"). */
async function signIn(page: Page, key: string) {
  await page.goto(`${base}/app`)
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Stock', level: 1, exact: true }).waitFor()
}

/** A phone signed in on the count screen, with main_bar and Maria chosen: ready to start or arrange. */
async function countSetupOnPhone(t: { after: (fn: () => Promise<void>) => void }, key: string): Promise<Page> {
  const page = await openPage(t, PHONE)
  await signIn(page, key)
  await page.getByRole('link', { name: 'Count' }).click()
  await page.getByLabel('Location').selectOption('main_bar')
  await page.getByLabel('Your name').fill('Maria')
  return page
}

/**
 * A revocation reaches the server's key cache by NOTIFY, a moment after its commit (on PostgreSQL, later
 * still on a busy machine): wait until the server refuses the key, so the console's next call is refused.
 */
async function untilServerRefuses(caller: Caller) {
  for (let attempt = 1; ; attempt++) {
    const response = await ctx.request('GET', '/v1/locations', { key: caller.key })
    if (response.statusCode === 401) return
    assert.ok(attempt < 200, `the key still works ${attempt * 25} ms after its revocation`)
    await setTimeout(25)
  }
}

async function quantityOf(caller: Caller, itemId: string): Promise<number> {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity
}

async function countsOf(caller: Caller): Promise<number> {
  return json(await ctx.request('GET', '/v1/inventory/counts', { key: caller.key })).pagination.total
}

/**
 * Nothing to scroll sideways, and nothing cut off: the page is no wider than its viewport, and no visible
 * element (inside a box that scrolls or clips, too) ends beyond its right edge. `screen` names the failure.
 */
async function assertFitsWidth(page: Page, screen = '') {
  const found = (await page.evaluate(`(() => {
    const width = innerWidth
    const shown = (element) => !element.closest('.visually-hidden, .skip, thead') && element.getClientRects().length > 0
    const beyond = [...document.querySelectorAll('body *')]
      .filter((element) => shown(element) && element.getBoundingClientRect().right > width + 0.5)
      .map((element) => element.tagName.toLowerCase() + (element.className ? '.' + String(element.className).split(' ')[0] : '') + ' "' + (element.textContent ?? '').trim().slice(0, 30) + '" ends at ' + Math.round(element.getBoundingClientRect().right))
    return { scrollWidth: document.scrollingElement.scrollWidth, width, beyond: beyond.slice(0, 5) }
  })()`)) as { scrollWidth: number; width: number; beyond: string[] }
  assert.ok(found.scrollWidth <= found.width, `${screen}: the page is ${found.scrollWidth} px wide in a ${found.width} px viewport`)
  assert.deepEqual(found.beyond, [], `${screen}: elements end beyond the ${found.width} px viewport`)
}

/** A caller whose account has a storeroom beside main_bar. */
async function callerWithStoreroom(): Promise<Caller> {
  const caller = await ctx.newCaller()
  await ok(ctx, caller, 'POST', '/v1/locations', { id: 'storeroom', name: 'Storeroom' })
  return caller
}

describe('the operator console at /app', { skip: SKIP }, () => {
  before(async () => {
    ctx = await createPosTestContext()
    base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    // Root (CI, containers) cannot use Chromium's sandbox.
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] })
  })
  after(async () => {
    await browser?.close()
    await ctx?.close()
  })

  test('is served from the bundle with a content security policy, its assets cached for good', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/app' })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /text\/html/)
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/)
    assert.equal(page.headers['cache-control'], 'no-cache')
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(page.body)?.[1]
    assert.ok(script, page.body)
    const asset = await ctx.app.inject({ method: 'GET', url: script })
    assert.equal(asset.statusCode, 200)
    assert.match(String(asset.headers['cache-control']), /immutable/)
  })

  test('signs in with a key, refuses a wrong one with the API’s message, and keeps the key in the tab only', async (t) => {
    const caller = await ctx.newCaller()
    const page = await openPage(t)
    await page.goto(`${base}/app`)
    await screenshot(page, 'sign-in')
    await page.getByLabel('API key').fill('bs_live_not_a_key')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('The API key is missing, invalid, revoked or expired').waitFor()
    assert.equal(await page.getByLabel('API key').getAttribute('aria-invalid'), 'true')
    await page.getByLabel('API key').fill(caller.key)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Stock', level: 1, exact: true }).waitFor()
    assert.equal(await page.evaluate('sessionStorage.getItem("barstock.api_key")'), caller.key)
    assert.equal(await page.evaluate('JSON.stringify(localStorage).includes("bs_")'), false)
  })

  test('a key revoked during the session returns the user to sign-in with the reason', async (t) => {
    const caller = await ctx.newCaller()
    const page = await openPage(t)
    await signIn(page, caller.key)
    // The stock screen's own calls (items, locations) are answered before the revocation, so the click
    // below is what meets the revoked key.
    await page.getByText('0 items').waitFor()
    await page.locator('select option[value="main_bar"]').waitFor({ state: 'attached' })
    await revokeApiKey(ctx.database.db, caller.keyId)
    await untilServerRefuses(caller)
    await page.getByRole('link', { name: 'Variance' }).click()
    await page.getByRole('heading', { name: 'Sign in to barstock' }).waitFor()
    await page.getByText('Signed out: The API key is missing, invalid, revoked or expired').waitFor()
    assert.equal(await page.evaluate('sessionStorage.getItem("barstock.api_key")'), null)
  })

  test('stock lists items by location, finds them by name or SKU, and shows only low stock on request', async (t) => {
    const caller = await ctx.newCaller()
    await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 750ml', quantity: 10, reorder_point: 4 })
    await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml', sku: 'JAM-750', quantity: 2, reorder_point: 4 })
    await createItem(ctx, caller, { name: 'Aperol 1L', quantity: 6, reorder_point: 2, size_ml: 1000, category: 'liqueur' })
    const page = await openPage(t)
    await signIn(page, caller.key)
    const rows = page.locator('tbody tr')
    await page.getByText('3 items').waitFor()
    await screenshot(page, 'stock')
    await page.getByLabel('Search name or SKU').fill('jam-750')
    await page.getByText('1 item', { exact: true }).waitFor()
    assert.deepEqual(await rows.locator('th').allTextContents(), ['Jameson Irish Whiskey 750ml'])
    await page.getByLabel('Search name or SKU').fill('')
    await page.getByLabel('Low stock only').check()
    await page.getByText('1 item', { exact: true }).waitFor()
    assert.deepEqual(await rows.locator('th').allTextContents(), ['Jameson Irish Whiskey 750ml'])
    assert.match((await rows.first().textContent()) ?? '', /Low stock/)
    await page.getByLabel('Location').selectOption('main_bar')
    await page.getByText('1 item', { exact: true }).waitFor()
  })

  test('on a phone, a count goes item by item in tenths, shows the API’s error on its line, and survives a lost connection', async (t) => {
    const caller = await ctx.newCaller()
    const jameson = await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml', quantity: 3 })
    const titos = await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 750ml', quantity: 10 })
    const page = await countSetupOnPhone(t, caller.key)
    await page.getByRole('button', { name: 'Start count' }).click()

    await page.getByRole('heading', { name: 'Jameson Irish Whiskey 750ml' }).waitFor()
    await page.getByLabel('Quantity (bottle)').fill('2')
    for (let tenth = 0; tenth < 3; tenth++) await page.getByRole('button', { name: 'Plus one tenth' }).click()
    assert.equal(await page.getByLabel('Quantity (bottle)').inputValue(), '2.3')
    await screenshot(page, 'count-phone')
    await page.getByRole('button', { name: 'Next' }).click()
    await page.getByRole('heading', { name: 'Tito’s Handmade Vodka 750ml' }).waitFor()
    await page.getByLabel('Quantity (bottle)').fill('-1')
    await page.getByText('-1 is below zero').waitFor()
    await page.getByLabel('Quantity (bottle)').press('Enter')
    // The screen warns before sending; sent anyway, the API refuses the line.
    await page.getByRole('button', { name: 'Submit count (2)' }).click()
    await page.getByRole('alert').getByText('1 entry looks wrong: Tito’s Handmade Vodka 750ml.').waitFor()
    assert.equal(await countsOf(caller), 0)
    await page.getByRole('button', { name: 'Submit anyway (2)' }).click()

    // The API refuses the line: the error shows on it, and nothing was recorded.
    await page.getByText('items[1].quantity must be zero or a positive number, got -1').waitFor()
    await page.getByRole('heading', { name: 'Tito’s Handmade Vodka 750ml' }).waitFor()
    assert.equal(await page.getByLabel('Quantity (bottle)').getAttribute('aria-invalid'), 'true')
    await screenshot(page, 'count-line-error')
    assert.equal(await quantityOf(caller, titos.id), 10)
    assert.equal(await countsOf(caller), 0)

    await page.getByLabel('Quantity (bottle)').fill('7.5')
    await page.getByRole('button', { name: 'Review' }).click()
    await page.context().setOffline(true)
    await page.getByRole('button', { name: 'Submit count (2)' }).click()
    await page.getByText('Everything typed is kept on this device').waitFor()
    await screenshot(page, 'count-offline')
    // Leaving the screen and coming back loses nothing.
    await page.getByRole('link', { name: 'Stock' }).click()
    await page.getByRole('link', { name: 'Count' }).click()
    await page.getByText('2.3 bottle').waitFor()
    await page.getByText('7.5 bottle').waitFor()
    assert.equal(await countsOf(caller), 0)

    await page.context().setOffline(false)
    await page.getByRole('heading', { name: 'Count recorded' }).waitFor()
    assert.equal(await quantityOf(caller, jameson.id), 2.3)
    assert.equal(await quantityOf(caller, titos.id), 7.5)
    assert.equal(await countsOf(caller), 1, 'the retries recorded the count once')
  })

  test('on a phone, the count follows the shelf order saved for the location, and asks to check a negative or implausible entry before sending', async (t) => {
    const caller = await ctx.newCaller()
    const aperol = await createItem(ctx, caller, { name: 'Aperol 1L', quantity: 6, par_level: 12 })
    const campari = await createItem(ctx, caller, { name: 'Campari 1L', quantity: 2 })
    const jameson = await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml', quantity: 3 })
    const page = await countSetupOnPhone(t, caller.key)
    await page.getByRole('button', { name: 'Arrange shelf order' }).click()
    const shelf = page.locator('ol.shelf li .name')
    await page.getByRole('button', { name: 'Move Jameson Irish Whiskey 750ml up' }).waitFor()
    assert.deepEqual(await shelf.allTextContents(), ['Aperol 1L', 'Campari 1L', 'Jameson Irish Whiskey 750ml'])
    await page.getByRole('button', { name: 'Move Jameson Irish Whiskey 750ml up' }).click()
    await page.getByRole('button', { name: 'Move Jameson Irish Whiskey 750ml up' }).click()
    await page.getByRole('button', { name: 'Save shelf order' }).click()
    await page.getByText('Shelf order saved for every phone of this account.').waitFor()
    await assertFitsWidth(page, 'shelf order')
    // Saved on the server: every phone of the account counts in this order.
    const saved = json(await ctx.request('GET', '/v1/locations/main_bar/shelf-order', { key: caller.key })).data
    assert.deepEqual(saved.item_ids, [jameson.id, aperol.id, campari.id])

    await page.getByRole('button', { name: 'Start count' }).click()
    await page.getByRole('heading', { name: 'Jameson Irish Whiskey 750ml' }).waitFor()
    await page.getByLabel('Quantity (bottle)').fill('2')
    await page.getByRole('button', { name: 'Next' }).click()
    await page.getByRole('heading', { name: 'Aperol 1L' }).waitFor()
    // 6 expected, par 12: 13 is not beyond what the bar means to hold, 75 is.
    await page.getByLabel('Quantity (bottle)').fill('13')
    assert.equal(await page.locator('#count-quantity-warning').textContent(), '')
    await page.getByLabel('Quantity (bottle)').fill('75')
    await page.getByText('75 bottle is far more than the 6 expected here').waitFor()
    await page.getByRole('button', { name: 'Next' }).click()
    await page.getByRole('heading', { name: 'Campari 1L' }).waitFor()
    await page.getByLabel('Quantity (bottle)').fill('2')
    await page.getByRole('button', { name: 'Review' }).click()
    await page.getByRole('button', { name: 'Submit count (3)' }).click()
    await page.getByRole('alert').getByText('1 entry looks wrong: Aperol 1L.').waitFor()
    assert.equal(await countsOf(caller), 0, 'nothing is sent before the entry is checked')
    await screenshot(page, 'count-warning')

    // Corrected, the count goes at the first press.
    await page.getByRole('button', { name: 'Change Aperol 1L' }).click()
    await page.getByLabel('Quantity (bottle)').fill('7.5')
    await page.getByLabel('Quantity (bottle)').press('Enter')
    await page.getByRole('button', { name: 'Review' }).click()
    await page.getByRole('button', { name: 'Submit count (3)' }).click()
    await page.getByRole('heading', { name: 'Count recorded' }).waitFor()
    assert.equal(await quantityOf(caller, aperol.id), 7.5)
  })

  test('on a phone, a transfer moves the quantities typed, shows the API’s refusal on its line, is listed and can be voided', async (t) => {
    const caller = await callerWithStoreroom()
    const gin = await createItem(ctx, caller, { name: 'Tanqueray London Dry Gin 750ml', location: 'storeroom', quantity: 12 })
    await createItem(ctx, caller, { name: 'Aperol 1L', location: 'storeroom', quantity: 6, size_ml: 1000 })
    const page = await openPage(t, PHONE)
    page.on('dialog', (dialog) => void dialog.accept())
    await signIn(page, caller.key)
    await page.getByRole('link', { name: 'Transfer' }).click()
    await page.getByLabel('From', { exact: true }).selectOption('storeroom')
    await page.getByLabel('To', { exact: true }).selectOption('main_bar')
    await page.getByLabel('Moved by').fill('Sam')
    const ginQuantity = page.getByLabel('Tanqueray London Dry Gin 750ml')
    await ginQuantity.fill('0')
    await page.getByRole('button', { name: 'Record transfer (1)' }).click()
    await page.getByText('items[0].quantity must be more than zero').waitFor()
    assert.equal(await ginQuantity.getAttribute('aria-invalid'), 'true')
    assert.equal(json(await ctx.request('GET', '/v1/inventory/transfers', { key: caller.key })).data.length, 0)

    await ginQuantity.fill('6.5')
    await page.getByRole('button', { name: 'Record transfer (1)' }).click()
    await page.getByText('Transfer recorded: 1 item from storeroom to main_bar.').waitFor()
    const card = page.locator('.record', { hasText: 'storeroom → main_bar' })
    await card.getByText('Tanqueray London Dry Gin 750ml: 6.5 bottle').waitFor()
    await card.getByText('By Sam').waitFor()
    await assertFitsWidth(page)
    await screenshot(page, 'transfer-phone')
    const [transfer] = json(await ctx.request('GET', '/v1/inventory/transfers', { key: caller.key })).data
    assert.deepEqual([transfer.from_location, transfer.to_location, transfer.transferred_by], ['storeroom', 'main_bar', 'Sam'])
    assert.deepEqual(
      transfer.items.map((line: { from_item_id: string; quantity: number }) => [line.from_item_id, line.quantity]),
      [[gin.id, 6.5]],
    )
    assert.equal(await quantityOf(caller, gin.id), 5.5)

    await card.getByRole('button', { name: 'Void' }).click()
    await card.getByText('Voided').waitFor()
    assert.equal(await card.getByRole('button', { name: 'Void' }).count(), 0)
    assert.notEqual(json(await ctx.request('GET', `/v1/inventory/transfers/${transfer.id}`, { key: caller.key })).data.voided_at, null)
    assert.equal(await quantityOf(caller, gin.id), 12)
  })

  test('on a phone, waste is logged line by line (a spill in oz, a breakage in bottles) without sideways scrolling, listed with its cost, and can be voided', async (t) => {
    const caller = await ctx.newCaller()
    const titos = await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 750ml', quantity: 10, cost_per_unit: 18.5 })
    const jameson = await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml', quantity: 4, cost_per_unit: 24 })
    const page = await openPage(t, PHONE)
    page.on('dialog', (dialog) => void dialog.accept())
    await signIn(page, caller.key)
    await page.getByRole('link', { name: 'Waste' }).click()
    await page.getByLabel('Location').selectOption('main_bar')
    await page.getByLabel('Your name').fill('Maria')
    const first = page.getByRole('group', { name: 'Item 1' })
    await first.getByLabel('Item', { exact: true }).selectOption({ label: 'Tito’s Handmade Vodka 750ml' })
    await first.getByLabel('Quantity').fill('1.5')
    await first.getByLabel('Unit').selectOption('oz')
    await first.getByLabel('Reason').selectOption('spill')
    await first.getByLabel('Notes (optional)').fill('knocked over at close')
    await page.getByRole('button', { name: 'Add another item' }).click()
    const second = page.getByRole('group', { name: 'Item 2' })
    await second.getByLabel('Item', { exact: true }).selectOption({ label: 'Jameson Irish Whiskey 750ml' })
    await second.getByLabel('Quantity').fill('1')
    await second.getByLabel('Reason').selectOption('breakage')
    await assertFitsWidth(page)
    await screenshot(page, 'waste-phone')
    await page.getByRole('button', { name: 'Record waste (2)' }).click()
    // The page's answer first: the entry exists once the console has been told so.
    await page.getByText(/^Waste recorded at main_bar: /).waitFor()

    const [entry] = json(await ctx.request('GET', '/v1/inventory/waste', { key: caller.key })).data
    await page.getByText(`Waste recorded at main_bar: ${entry.total_cost.toFixed(2)}.`).waitFor()
    assert.equal(entry.recorded_by, 'Maria')
    assert.deepEqual(
      entry.items.map((line: { item_id: string; quantity: number; unit: string; reason: string; notes: string | null }) => [
        line.item_id,
        line.quantity,
        line.unit,
        line.reason,
        line.notes,
      ]),
      [
        [titos.id, 1.5, 'oz', 'spill', 'knocked over at close'],
        [jameson.id, 1, 'bottle', 'breakage', null],
      ],
    )
    const card = page.locator('.record', { hasText: `main_bar: ${entry.total_cost.toFixed(2)}` })
    await card.getByText('Tito’s Handmade Vodka 750ml: 1.5 oz, Spill').waitFor()
    await card.getByText('Jameson Irish Whiskey 750ml: 1 bottle, Breakage (24.00)').waitFor()
    await assertFitsWidth(page)
    assert.equal(await quantityOf(caller, jameson.id), 3)

    await card.getByRole('button', { name: 'Void' }).click()
    await card.getByText('Voided').waitFor()
    assert.notEqual(json(await ctx.request('GET', `/v1/inventory/waste/${entry.id}`, { key: caller.key })).data.voided_at, null)
    assert.equal(await quantityOf(caller, jameson.id), 4)
  })

  test('on a phone, an item with container weights counts its full bottles and weighs each open one', async (t) => {
    const caller = await ctx.newCaller()
    const titos = await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 750ml', quantity: 10, full_weight_g: 1250, empty_weight_g: 450 })
    const page = await countSetupOnPhone(t, caller.key)
    await page.getByRole('button', { name: 'Start count' }).click()

    await page.getByLabel('Quantity (bottle)').fill('2')
    await page.getByLabel('Weight of open bottle 1 (g)').fill('850')
    await page.getByRole('button', { name: 'Add another open bottle' }).click()
    await page.getByLabel('Weight of open bottle 2 (g)').fill('650')
    await screenshot(page, 'count-weights')
    await page.getByRole('button', { name: 'Review' }).click()
    await page.getByText('2 bottle + open: 850 g, 650 g').waitFor()
    await page.getByRole('button', { name: 'Submit count (1)' }).click()
    await page.getByRole('heading', { name: 'Count recorded' }).waitFor()
    // 2 full, one half full (400 of 800 g of liquid) and one a quarter full.
    assert.equal(await quantityOf(caller, titos.id), 2.75)
  })

  test('variance leads with the loss, says what it measured, charts the loss with its figures, shows a gain as one to check, and shows transfers and recorded waste apart', async (t) => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await ok(ctx, caller, 'POST', '/v1/locations', { id: 'storeroom', name: 'Storeroom' })
    const titos = await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 750ml', quantity: 12 })
    const jameson = await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml', quantity: 8, cost_per_unit: 24 })
    const aperol = await createItem(ctx, caller, { name: 'Aperol 1L', quantity: 5, cost_per_unit: 20 })
    await count(
      ctx,
      caller,
      [
        { item_id: titos.id, quantity: 12 },
        { item_id: jameson.id, quantity: 8 },
        { item_id: aperol.id, quantity: 5 },
      ],
      daysAgo(10),
    )
    await ok(ctx, caller, 'POST', '/v1/inventory/transfers', {
      from_location: 'main_bar',
      to_location: 'storeroom',
      transferred_by: 'Sam',
      transferred_at: daysAgo(8),
      items: [{ item_id: titos.id, quantity: 2 }],
    })
    await ok(ctx, caller, 'POST', '/v1/inventory/waste', {
      location: 'main_bar',
      recorded_by: 'Maria',
      occurred_at: daysAgo(6),
      items: [{ item_id: jameson.id, quantity: 1, reason: 'breakage' }],
    })
    // Two bottles of Aperol more than anything recorded: a gain to check.
    await count(
      ctx,
      caller,
      [
        { item_id: titos.id, quantity: 6 },
        { item_id: jameson.id, quantity: 6 },
        { item_id: aperol.id, quantity: 7 },
      ],
      daysAgo(3),
    )
    const report = json(await ctx.request('GET', '/v1/analytics/variance', { key: caller.key })).data
    assert.ok(report.summary.gross_gain > 0 && report.summary.gross_loss > report.total_variance, JSON.stringify(report.summary))
    const page = await openPage(t)
    await signIn(page, caller.key)
    await page.getByRole('link', { name: 'Variance' }).click()
    await page.getByRole('heading', { name: 'Loss by item' }).waitFor()

    // The loss leads, the gain is apart, the net comes after them.
    assert.deepEqual((await page.locator('.cards dt').allTextContents()).slice(0, 3), ['Loss', 'Gain to check', 'Net variance'])
    const money = (amount: number) => `USD ${amount.toFixed(2)}`
    assert.equal(await page.locator('.cards > div', { hasText: 'Loss' }).first().locator('dd').first().textContent(), money(report.summary.gross_loss))
    assert.equal(await page.locator('.cards > div', { hasText: 'Gain to check' }).locator('dd').first().textContent(), money(report.summary.gross_gain))
    await page.getByText(`measured from the count of ${report.period_measured.from.slice(0, 10)} to that of ${report.period_measured.to.slice(0, 10)}`).waitFor()
    await page.locator('tbody tr', { hasText: 'Aperol 1L' }).getByText('gain to check').waitFor()
    await page.getByText('A negative variance is a gain to check, not good news').waitFor()

    // The chart is a labelled figure whose every bar has its item's name and amount written out.
    const chart = page.getByRole('figure', { name: 'Estimated loss of the 2 items that lost most, in USD' })
    const losers = report.items.filter((item: { estimated_loss: number }) => item.estimated_loss > 0)
    assert.deepEqual(
      await chart.getByRole('listitem').allTextContents(),
      losers.map((item: { name: string; estimated_loss: number }) => `${item.name}${item.estimated_loss.toFixed(2)}`),
    )

    const row = page.locator('tbody tr', { hasText: 'Tito’s Handmade Vodka 750ml' })
    await row.locator('summary').first().click()
    await row.locator('.evidence').first().waitFor()
    await row.getByText('Transferred out: 2 bottle').waitFor()
    await page.locator('tbody tr', { hasText: 'Jameson Irish Whiskey 750ml' }).getByText('Recorded waste: 1 bottle (24.00)').waitFor()
    await page.locator('.cards').getByText('Breakage: 24.00').waitFor()
    await screenshot(page, 'variance')
  })

  test('order recommendations become a draft order in one step, which can then be submitted; the item’s forecast is charted', async (t) => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const distributor = await createDistributor(ctx, caller, { name: 'Southern Glazer’s', lead_time_days: 0 })
    const rum = await createItem(ctx, caller, { name: 'Bacardí Superior Rum 750ml', quantity: 0, cost_per_unit: 14 })
    await sellDaily(ctx, caller, rum.id, 28, 1)
    await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: rum.id, unit: 'bottle', unit_price: 12.5 }])

    const page = await openPage(t)
    await signIn(page, caller.key)
    await page.getByRole('link', { name: 'Orders' }).click()
    await page.getByLabel('Distributor').selectOption(distributor.id)
    await page.getByLabel('Location').selectOption('main_bar')
    await page.locator('tbody tr', { hasText: 'Bacardí Superior Rum 750ml' }).waitFor()
    await screenshot(page, 'recommendations')
    await page.getByRole('button', { name: 'Create draft order' }).click()
    await page.getByText(/^Draft order created for Southern Glazer’s on /).waitFor()
    const orders = json(await ctx.request('GET', '/v1/orders', { key: caller.key })).data
    assert.equal(orders.length, 1)
    assert.equal(orders[0].status, 'draft')
    // The order is named by its distributor and the day it was made (as this browser writes it), never its id.
    const created = (await page.evaluate(`new Date(${JSON.stringify(orders[0].created_at)}).toLocaleString()`)) as string
    const orderList = page.locator('section[aria-labelledby="orders-title"]')
    const row = orderList.locator('tbody tr', { hasText: 'Southern Glazer’s' })
    assert.equal(await row.locator('th').textContent(), `Southern Glazer’s${created}, for Main bar`)
    await row.getByRole('button', { name: `Submit the order to Southern Glazer’s, ${created}` }).click()
    await row.getByText('submitted').waitFor()
    assert.doesNotMatch((await orderList.textContent()) ?? '', /ord_/)
    assert.doesNotMatch((await page.getByRole('status').first().textContent()) ?? '', /ord_/)
    await screenshot(page, 'orders')

    await page.getByRole('link', { name: 'Forecast' }).click()
    await page.getByRole('heading', { name: 'Bacardí Superior Rum 750ml: daily use in bottles' }).waitFor()
    // uPlot draws its canvas in an effect, after the heading has been painted: wait for it, then check it is the only one.
    await page.locator('.chart canvas').waitFor()
    assert.equal(await page.locator('.chart canvas').count(), 1)
    // The API's 56 days of history start with the days before the first sale: the chart starts at that sale.
    const history: { date: string; quantity: number }[] = json(await ctx.request('GET', `/v1/analytics/forecast/items/${rum.id}`, { key: caller.key })).data.history
    const firstSale = history.findIndex((day) => day.quantity > 0)
    assert.ok(firstSale > 0, 'the history has days before the first sale')
    assert.match((await page.locator('.chart').getAttribute('aria-label')) ?? '', new RegExp(`over ${history.length - firstSale} days from ${history[firstSale]!.date},`))
    await page.getByText('Forecast figures').click()
    assert.equal(await page.locator('details tbody tr').count(), 30)
    await screenshot(page, 'forecast')
  })

  test('POS lists connections with their sync runs; accepting a suggestion maps the POS item, rejecting drops it', async (t) => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const titos = await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 1L', size_ml: 1000 })
    const channel = await salesChannel(ctx, caller)
    await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml' })
    await channel.sell([
      { pos_item_id: 'TITO-DBL', name: 'Titos Vodka Dbl', quantity: 2, unit_price: 14, sold_at: daysAgo(1) },
      { pos_item_id: 'JAM-SHOT', name: 'Jameson Shot', quantity: 1, unit_price: 9, sold_at: daysAgo(1) },
    ])
    await ok(ctx, caller, 'POST', `/v1/pos/connections/${channel.connectionId}/auto-map`, { confidence_threshold: 1 })
    const page = await openPage(t)
    await signIn(page, caller.key)
    await page.getByRole('link', { name: 'POS' }).click()
    await page.getByRole('heading', { name: 'Mappings to review' }).waitFor()
    const accept = page.getByRole('button', { name: 'Accept Tito’s Handmade Vodka 1L for Titos Vodka Dbl' })
    await accept.waitFor()
    // The suggestion says whose stock its sales would take.
    await page.locator('tbody tr', { hasText: 'Titos Vodka Dbl' }).getByText('at Main bar', { exact: true }).waitFor()
    // A double of a 1L bottle: 3 oz a sale. The API's refusal of a zero amount shows on the row.
    await page.getByLabel('Amount of Tito’s Handmade Vodka 1L per Titos Vodka Dbl').fill('0')
    await accept.click()
    await page.getByRole('alert').filter({ hasText: 'conversion_factor' }).waitFor()
    assert.equal(json(await ctx.request('GET', `/v1/pos/connections/${channel.connectionId}/mappings?mapped=true`, { key: caller.key })).data.length, 0)
    await page.getByLabel('Amount of Tito’s Handmade Vodka 1L per Titos Vodka Dbl').fill('3')
    await screenshot(page, 'pos')
    await accept.click()
    await accept.waitFor({ state: 'detached' })
    // The mapping made says what a sale takes, in words.
    await page.getByText('1 sale = 3 oz = 0.089 bottle of Tito’s Handmade Vodka 1L').waitFor()
    await page.getByRole('button', { name: 'Reject Jameson Irish Whiskey 750ml for Jameson Shot' }).click()
    await page.getByText('No suggestion waits for review.').waitFor()
    const mapped = json(await ctx.request('GET', `/v1/pos/connections/${channel.connectionId}/mappings?mapped=true`, { key: caller.key })).data
    assert.deepEqual(
      mapped.map((mapping: { inventory_item_id: string }) => mapping.inventory_item_id),
      [titos.id],
    )
    const waiting = json(await ctx.request('GET', `/v1/pos/connections/${channel.connectionId}/mappings?mapped=false`, { key: caller.key })).data
    assert.deepEqual(
      waiting.map((item: { pos_item_id: string; suggestion: unknown }) => [item.pos_item_id, item.suggestion]),
      [['JAM-SHOT', null]],
    )
  })

  test('POS connects a vendor and asks for its first sync in the same call: the new connection shows its run', async (t) => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const page = await openPage(t)
    await signIn(page, caller.key)
    await page.getByRole('link', { name: 'POS' }).click()
    await page.getByText('No POS is connected yet.').waitFor()
    await page.getByLabel('POS', { exact: true }).selectOption('square')
    await page.getByLabel('Connection name').fill('Front bar Square')
    await page.getByLabel('Access token').fill(SQUARE_CREDENTIALS.access_token)
    await page.getByLabel('Location ID').fill(SQUARE_CREDENTIALS.location_id)
    await page.getByRole('button', { name: 'Connect and sync' }).click()
    await page.getByRole('button', { name: 'Front bar Square' }).waitFor()
    // No worker runs in this file: the first run stays queued, as the console shows it.
    await page.getByRole('heading', { name: 'Sync runs of Front bar Square' }).waitFor()
    await page.locator('.badge.sync-processing').waitFor()
    const [connection] = json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key })).data
    const runs = json(await ctx.request('GET', '/v1/pos/syncs', { key: caller.key, query: { connection_id: connection.id } })).data
    assert.deepEqual(
      runs.map((run: { sync_type: string; status: string }) => [run.sync_type, run.status]),
      [['incremental', 'processing']],
    )
  })

  test('every screen fits a 390 px phone and a 1366 px laptop: tables stack into cards, nothing scrolls sideways or is cut off', async (t) => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await ok(ctx, caller, 'POST', '/v1/locations', { id: 'storeroom', name: 'Storeroom' })
    const long = 'Glenfiddich 12 Year Old Single Malt Scotch Whisky 750ml'
    const whisky = await createItem(ctx, caller, { name: long, sku: 'GLENFIDDICH-12-YEAR-OLD-750', quantity: 12, cost_per_unit: 38, par_level: 12 })
    const rum = await createItem(ctx, caller, { name: 'Bacardí Superior Rum 750ml', quantity: 0, cost_per_unit: 14 })
    await count(ctx, caller, [{ item_id: whisky.id, quantity: 12 }], daysAgo(10))
    await ok(ctx, caller, 'POST', '/v1/inventory/waste', {
      location: 'main_bar',
      recorded_by: 'Maria',
      occurred_at: daysAgo(6),
      items: [{ item_id: whisky.id, quantity: 1, reason: 'breakage' }],
    })
    await count(ctx, caller, [{ item_id: whisky.id, quantity: 7 }], daysAgo(3))
    const distributor = await createDistributor(ctx, caller, { name: 'Southern Glazer’s Wine & Spirits of New York', lead_time_days: 0 })
    await sellDaily(ctx, caller, rum.id, 28, 1)
    await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: rum.id, unit: 'bottle', unit_price: 12.5 }])
    await ok(ctx, caller, 'POST', '/v1/orders', { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: rum.id, quantity: 6, unit: 'bottle' }] })
    const channel = await salesChannel(ctx, caller)
    await channel.sell([{ pos_item_id: 'GLEN-12-DBL', name: 'Glenfiddich 12 Year Old Single Malt Dbl', quantity: 1, unit_price: 24, sold_at: daysAgo(1) }])
    await ok(ctx, caller, 'POST', `/v1/pos/connections/${channel.connectionId}/auto-map`, { confidence_threshold: 1 })

    const page = await openPage(t, PHONE)
    await signIn(page, caller.key)
    const screens: [string, () => Promise<unknown>][] = [
      ['stock', () => page.getByText('2 items').waitFor()],
      ['count', () => page.getByRole('button', { name: 'Start count' }).waitFor()],
      ['transfer', () => page.getByLabel('Moved by').waitFor()],
      ['waste', () => page.getByRole('heading', { name: 'Waste', level: 1 }).waitFor()],
      ['variance', () => page.locator('tbody tr', { hasText: long }).waitFor()],
      ['forecast', () => page.getByRole('heading', { name: 'Bacardí Superior Rum 750ml: daily use in bottles' }).waitFor()],
      [
        'orders',
        async () => {
          await page.getByLabel('Distributor').selectOption(distributor.id)
          await page.getByLabel('Location').selectOption('main_bar')
          await page.getByRole('button', { name: 'Create draft order' }).waitFor()
          await page.locator('tbody tr', { hasText: 'draft' }).waitFor()
        },
      ],
      [
        'pos',
        async () => {
          // sellDaily's connection is the first: the suggestion waits on the second.
          await page.getByRole('button', { name: 'Front bar Square' }).last().click()
          await page.getByRole('button', { name: `Accept ${long} for Glenfiddich 12 Year Old Single Malt Dbl` }).waitFor()
        },
      ],
    ]
    const PHONE_SHOTS = ['stock', 'variance', 'orders', 'pos']
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1366, height: 900 },
    ]) {
      await page.setViewportSize(viewport)
      for (const [screen, shown] of screens) {
        await page.goto(`${base}/app#/${screen}`)
        await shown()
        if (viewport.width === 390 && PHONE_SHOTS.includes(screen)) await screenshot(page, `phone-${screen}`)
        await assertFitsWidth(page, `${screen} at ${viewport.width} px`)
      }
    }
  })
})
