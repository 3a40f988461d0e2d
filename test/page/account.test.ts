import { readFileSync } from 'node:fs'
import t from 'tap'
import { call } from '../cli-process.js'
import { check, household, noProblems, skip, signIn } from './browser.js'

// A signed-in member on the household page, in headless Chromium: adding a phone (the Apple profile
// downloaded, DAVx⁵'s details shown and working), removing it, signing another session out, changing
// the password.

t.test('add a device both ways, and remove one', { skip }, async (t) => {
  const h = await household(t)
  const page = await h.open(t)
  await page.goto(`${h.origin}/`)
  await signIn(page, h.owner.email, h.owner.password)
  await page.getByText('No devices yet.').waitFor()

  await page.getByLabel('Device name').fill('Anna’s iPhone')
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Add device' }).click()])
  t.equal(download.suggestedFilename(), 'hearth.mobileconfig')
  const profile = readFileSync((await download.path())!, 'utf8')
  t.match(profile, /<string>com\.apple\.caldav\.account<\/string>/, 'the download is the profile with a CalDAV account')
  t.match(profile, /<string>com\.apple\.carddav\.account<\/string>/, 'and a CardDAV account')
  await page.getByText('hearth.mobileconfig was downloaded').waitFor()
  await page.getByRole('listitem').filter({ hasText: 'Anna’s iPhone' }).waitFor()

  await page.getByLabel('Device name').fill('Pixel')
  await page.getByLabel('Android (DAVx⁵) or another app').check()
  await page.getByRole('button', { name: 'Add device' }).click()
  await page.locator('#davx5-password').filter({ hasText: /./ }).waitFor()
  const url = (await page.locator('#davx5-url').textContent())!
  const username = (await page.locator('#davx5-username').textContent())!
  const password = (await page.locator('#davx5-password').textContent())!
  t.equal(url, `${h.origin}/dav/`, 'the base URL is where the page was reached')
  t.equal(username, h.owner.email)
  await check(t, page, 'device-added')
  const dav = (pw: string) =>
    fetch(`${h.api.replace('/api/v1', '')}/dav/`, {
      method: 'PROPFIND',
      headers: { authorization: `Basic ${Buffer.from(`${username}:${pw}`).toString('base64')}`, depth: '0' },
    }).then((r) => r.status)
  t.equal(await dav(password), 207, 'the password shown signs the device in to /dav/')

  await page.getByRole('button', { name: 'Remove Pixel' }).click()
  await page.getByText('Pixel removed').waitFor()
  // The status is announced before the list is drawn again: wait for the item to go, then count.
  const pixel = page.getByRole('listitem').filter({ hasText: 'Pixel' })
  await pixel.first().waitFor({ state: 'detached', timeout: 15_000 })
  t.equal(await pixel.count(), 0, 'gone from the list')
  t.equal(await dav(password), 401, 'and its password no longer works')
  noProblems(t, page)
})

t.test('sign another session out; change the password', { skip }, async (t) => {
  const h = await household(t)
  const other = await call(h.api, 'POST', '/auth/login', undefined, h.owner)
  const otherRefresh = (other.json.data as { refreshToken: string }).refreshToken
  const page = await h.open(t)
  await page.goto(`${h.origin}/`)
  await signIn(page, h.owner.email, h.owner.password)
  const sessions = page.locator('#sessions li')
  await sessions.nth(2).waitFor()
  t.equal(await sessions.count(), 3, 'set-up, the other sign-in and this browser')
  t.equal(await sessions.filter({ hasText: 'This browser' }).count(), 1, 'this browser is marked')
  await check(t, page, 'sessions')

  await sessions.filter({ hasNotText: 'This browser' }).first().getByRole('button').click()
  await page.getByText(/signed out\.$/).waitFor()
  while ((await sessions.count()) !== 2) await page.waitForTimeout(50)
  t.pass('one session fewer in the list')
  t.equal((await call(h.api, 'POST', '/auth/refresh', undefined, { refresh_token: otherRefresh })).status, 401, 'its token is revoked')

  await page.getByLabel('Current password').fill(h.owner.password)
  await page.getByLabel('New password', { exact: true }).fill('a new long passphrase')
  await page.getByLabel('New password again').fill('a different one')
  await page.getByRole('button', { name: 'Change password' }).click()
  await page.getByText('The two new passwords differ.').waitFor()
  await page.getByLabel('New password again').fill('a new long passphrase')
  await page.getByRole('button', { name: 'Change password' }).click()
  await page.getByText('Password changed.').first().waitFor()
  t.equal(await sessions.count(), 1, 'every other session is signed out')
  t.equal((await call(h.api, 'POST', '/auth/refresh', undefined, { refresh_token: h.setupRefreshToken })).status, 401)
  t.equal((await call(h.api, 'POST', '/auth/login', undefined, h.owner)).status, 401, 'the old password is refused')
  t.equal(
    (await call(h.api, 'POST', '/auth/login', undefined, { email: h.owner.email, password: 'a new long passphrase' })).status,
    200,
    'the new one signs in',
  )
  await page.reload()
  await page.getByRole('heading', { name: 'Phones and computers' }).waitFor()
  t.pass('this browser stays signed in with the tokens the change answered')
  noProblems(t, page)
})
