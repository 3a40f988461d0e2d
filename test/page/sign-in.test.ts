import t from 'tap'
import { call } from '../cli-process.js'
import { appCode } from '../totp-reference.js'
import { check, household, noProblems, skip, signIn } from './browser.js'

// Signing in on the household page, clicked through in headless Chromium: the password alone, then
// two-step sign-in set up from the page (its QR code and key) and used with a code and a recovery code.

t.test('sign in with the password, stay signed in across a reload, sign out', { skip }, async (t) => {
  const h = await household(t)
  const page = await h.open(t)
  await page.goto(`${h.origin}/`)
  const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime)
  t.comment(`first contentful paint: ${paint?.toFixed(0)} ms`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await check(t, page, 'sign-in')

  await signIn(page, h.owner.email, 'not the password')
  await page.getByRole('alert').filter({ hasText: /./ }).waitFor()
  t.match(await page.locator('#signin-error').textContent(), /password/i, 'a wrong password is said so')

  // On a fresh load, with the keyboard alone: Tab to the email field (the first stop), type, Tab, type, Enter.
  await page.reload()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate('document.activeElement?.id'), 'email', 'the first Tab stop is the email field')
  await page.keyboard.type(h.owner.email)
  await page.keyboard.press('Tab')
  await page.keyboard.type(h.owner.password)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Phones and computers' }).waitFor()
  t.equal(await page.locator('#who-email').textContent(), h.owner.email, 'the bar names who is signed in')
  t.equal(await page.evaluate(() => Object.keys(localStorage).length), 0, 'nothing in localStorage')
  await check(t, page, 'home')

  await page.reload()
  await page.getByRole('heading', { name: 'Phones and computers' }).waitFor()
  t.pass('a reload of the tab stays signed in')
  const again = await page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime")
  t.comment(`first contentful paint, reloaded: ${(again as number | undefined)?.toFixed(0)} ms`)
  const refreshToken = await page.evaluate(() => sessionStorage.getItem('hearth.refreshToken'))

  await page.getByRole('button', { name: 'Sign out', exact: true }).first().click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the refresh token is forgotten')
  t.equal((await call(h.api, 'POST', '/auth/refresh', undefined, { refresh_token: refreshToken })).status, 401, 'and revoked')
  noProblems(t, page)
})

t.test('two-step sign-in: set up from the page, then a code and a recovery code at sign-in', { skip }, async (t) => {
  const h = await household(t)
  const page = await h.open(t)
  await page.goto(`${h.origin}/`)
  await signIn(page, h.owner.email, h.owner.password)

  await page.getByLabel('Your password').first().fill(h.owner.password)
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  const qr = page.getByRole('img', { name: 'QR code for your authenticator app' })
  await qr.locator('svg path').waitFor()
  const secret = (await page.locator('#tfa-secret').textContent())!.replace(/\s/g, '')
  t.match(secret, /^[A-Z2-7]{32}$/, 'the key is shown for typing in')
  t.ok(((await qr.locator('svg path').getAttribute('d')) ?? '').length > 1000, 'the QR code is drawn')
  await check(t, page, 'two-step-setup')

  await page.getByLabel('Code from the app', { exact: true }).fill(appCode(secret, Date.now()))
  await page.getByRole('button', { name: 'Turn on' }).click()
  const codes = page.locator('#tfa-code-list li')
  await codes.first().waitFor()
  t.equal(await codes.count(), 10, 'ten recovery codes are shown')
  const recovery = (await codes.allTextContents())[0]!
  await page.getByText(/^On: signing in asks for a code/).waitFor()
  await check(t, page, 'two-step-recovery-codes')

  await page.getByRole('button', { name: 'Sign out', exact: true }).first().click()
  await signIn(page, h.owner.email, h.owner.password)
  const code = page.getByLabel('Code', { exact: true })
  await code.waitFor()
  t.equal(await page.evaluate('document.activeElement?.id'), 'mfa-code', 'the code field has the focus')
  await check(t, page, 'sign-in-code')
  await code.fill('000000')
  await page.getByRole('button', { name: 'Verify' }).click()
  await page.locator('#mfa-error').filter({ hasText: /./ }).waitFor()
  t.pass('a wrong code is refused on the page')
  // The code of the next 30-second step (one step of drift is accepted): the confirming code was this step's.
  await code.fill(appCode(secret, Date.now() + 30_000))
  await page.getByRole('button', { name: 'Verify' }).click()
  await page.getByRole('heading', { name: 'Phones and computers' }).waitFor()
  t.pass('signed in with the password and a code from the app')

  await page.getByRole('button', { name: 'Sign out', exact: true }).first().click()
  await signIn(page, h.owner.email, h.owner.password)
  await code.fill(recovery)
  await page.getByRole('button', { name: 'Verify' }).click()
  await page.getByRole('heading', { name: 'Phones and computers' }).waitFor()
  await page.getByText('9 recovery codes left').waitFor()
  t.pass('signed in with a recovery code, which is then spent')
  noProblems(t, page)
})
