import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { call, type Daemon, startDaemon, tempDir } from '../cli-process.js'

/**
 * The household page in a real browser: Debian's Chromium, headless, driven by playwright-core, against a
 * real daemon process. The page is opened at http://localhost:PORT (a secure context, and a host name a
 * passkey's relying party can be), which reaches the daemon listening on 127.0.0.1.
 */
export const CHROMIUM = process.env.HEARTH_CHROMIUM ?? '/usr/bin/chromium'

/** Where the screenshots go: a folder CI keeps as artefacts (git ignores it). */
export const SCREENSHOTS =
  process.env.HEARTH_ARTIFACTS_DIR !== undefined
    ? join(process.env.HEARTH_ARTIFACTS_DIR, 'household-page')
    : fileURLToPath(new URL('../../../.ci/artifacts/household-page/', import.meta.url))

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const

export interface Household {
  daemon: Daemon
  /** http://localhost:PORT, where the page is opened. */
  origin: string
  /** The daemon's API base on 127.0.0.1, for the test's own calls. */
  api: string
  owner: { email: string; password: string }
  /** The refresh token set-up answered: a session of the owner's besides the page's. */
  setupRefreshToken: string
  browser: Browser
  /** A new page (its own browser context: its own sessionStorage) watched for errors and outside requests. */
  open(t: Test): Promise<Page>
}

/** The tests' `skip` option: the reason, printed by tap, where there is no Chromium to drive. */
export const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (Debian's chromium package; .ci/run installs it)`

export async function household(t: Test, env: Record<string, string> = {}): Promise<Household> {
  const daemon = await startDaemon(t, tempDir(t, 'hearth-page-'), env)
  const port = new URL(daemon.base).port
  const owner = { email: 'anna@example.test', password: 'correct horse battery' }
  const setup = await call(daemon.base, 'POST', '/auth/setup', undefined, { ...owner, name: 'Anna' })
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.status}`)
  // As root Chromium refuses to start without --no-sandbox; a container's small /dev/shm crashes its
  // renderers without --disable-dev-shm-usage; the rest keep it from reaching out (updates, sync, GPU probing).
  const args = [
    '--disable-dev-shm-usage',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  ]
  const browser = await chromium.launch({ executablePath: CHROMIUM, args })
  t.teardown(() => browser.close())
  const origin = `http://localhost:${port}`
  return {
    daemon,
    origin,
    api: daemon.base,
    owner,
    setupRefreshToken: (setup.json.data as { refreshToken: string }).refreshToken,
    browser,
    async open(tt) {
      const context = await browser.newContext({ viewport: SIZES.desktop, acceptDownloads: true })
      const page = await context.newPage()
      const problems: string[] = []
      // The browser logs each 4xx answer (a wrong password is one); every other error message is a problem.
      const answered4xx = /^Failed to load resource: the server responded with a status of 4\d\d/
      page.on('console', (m) => m.type() === 'error' && !answered4xx.test(m.text()) && problems.push(`console: ${m.text()}`))
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
      page.on('request', (r) => {
        const url = r.url()
        if (!url.startsWith(`${origin}/`) && !url.startsWith('blob:')) problems.push(`outside request: ${url}`)
      })
      seen.set(page, problems)
      tt.teardown(() => context.close())
      return page
    },
  }
}

const seen = new WeakMap<Page, string[]>()

/** Ends a test: nothing went wrong in the page the whole time (script errors, policy violations, outside requests). */
export function noProblems(t: Test, page: Page): void {
  t.same(seen.get(page), [], 'no script error, policy violation or outside request')
}

/** Fills the sign-in form and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  const form = page.locator('#password-form')
  await form.getByLabel('Email').fill(email)
  await form.getByLabel('Password').fill(password)
  await form.getByRole('button', { name: 'Sign in' }).click()
}

/**
 * The state's accessibility at phone and desktop sizes (axe-core: no serious or critical violation) and its
 * screenshots, `<state>-phone.png` and `<state>-desktop.png`. axe is evaluated through the DevTools
 * protocol: the page's policy refuses any script it does not serve itself.
 */
export async function check(t: Test, page: Page, state: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  // The test's code runs in the page (the tests compile without the DOM's types: strings, not functions).
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE)
  const size = page.viewportSize() ?? SIZES.desktop
  for (const [name, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport)
    const result = (await page.evaluate("axe.run({ resultTypes: ['violations'] })")) as {
      violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>
    }
    const bad = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
    t.same(bad, [], `${state}, ${name} size: no serious or critical accessibility violation`)
    await page.screenshot({ path: join(SCREENSHOTS, `${state}-${name}.png`), fullPage: true })
  }
  await page.setViewportSize(size)
}
