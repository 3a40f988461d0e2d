import t from 'tap'
import { check, household, noProblems, skip, signIn } from './browser.js'

// Passkeys on the household page, in headless Chromium with the DevTools protocol's virtual
// authenticator standing in for a phone's or laptop's (a platform authenticator with user verification
// and discoverable credentials): registered from the page, then used to sign in without the email.

t.test('register a passkey on the page, sign in with it, remove it', { skip }, async (t) => {
  const h = await household(t, { HEARTH_PUBLIC_HOSTNAME: 'localhost' })
  const page = await h.open(t)
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  })

  await page.goto(`${h.origin}/`)
  await signIn(page, h.owner.email, h.owner.password)
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor()
  await page.getByLabel('Name for the new passkey').fill('Laptop')
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await page.locator('#passkey-list li').filter({ hasText: 'Laptop' }).waitFor()
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  t.equal(credentials.length, 1, 'the authenticator holds one credential')
  t.equal(credentials[0]!.isResidentCredential, true, 'a discoverable one (sign-in needs no email)')
  await check(t, page, 'passkeys')

  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await check(t, page, 'sign-in-with-passkeys')
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
  await page.getByRole('heading', { name: 'Phones and computers' }).waitFor()
  t.equal(await page.locator('#who-email').textContent(), h.owner.email, 'signed in as the passkey’s owner')
  await page.locator('#sessions li').filter({ hasText: 'This browser' }).waitFor()
  t.pass('a session of its own, listed with the others')

  await page.reload()
  await page.getByRole('button', { name: 'Remove passkey Laptop' }).click()
  await page.getByText('Passkey Laptop removed.').waitFor()
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
  await page.locator('#signin-error').filter({ hasText: /./ }).waitFor()
  t.comment(`the page says: ${await page.locator('#signin-error').textContent()}`)
  t.equal(await page.getByRole('heading', { name: 'Sign in' }).isVisible(), true, 'a removed passkey signs nobody in')
  noProblems(t, page)
})
