/**
 * The household page's first paint: `npm run bench -- page`, or after a build `node dist/scripts/bench/page.js [runs]`.
 * Headless Chromium (Debian's, or HEARTH_CHROMIUM) opens http://localhost:PORT/ of a daemon started as
 * `npm start` does, `runs` times (default 15), each in a new browser context (an empty cache: a first
 * visit), then reloads it (the cached files revalidated: 304s). Prints the median first contentful paint
 * (the browser's own `first-contentful-paint` entry, from navigation start) and the bytes the first visit
 * moved. Baseline, same browser and run: a page of one line of text served by node:http from this process
 * (what any page costs this browser on this machine).
 */
import { createServer } from 'node:http'
import { chromium, type Page } from 'playwright-core'
import { median, startDaemon } from './harness.js'

const CHROMIUM = process.env.HEARTH_CHROMIUM ?? '/usr/bin/chromium'
// Each visit opens a new browser context, and headless Chromium builds a new window's address-bar pop-up (a
// WebUI page of ~64 chrome:// files) beside the page being measured: a cost of opening a window, which a
// person visiting the page in a browser already open does not pay. Those features are off so the figure is
// the page's own.
const WINDOW_CHROME = 'PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup'
const ARGS = [
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${WINDOW_CHROME}`,
]

const paintMs = async (page: Page): Promise<number> => {
  // The entry is recorded just after the frame is presented: wait for it rather than read too early.
  const ms = await page.evaluate(
    `new Promise((resolve) => new PerformanceObserver((list, observer) => { const e = list.getEntriesByName('first-contentful-paint')[0]; if (e) { observer.disconnect(); resolve(e.startTime) } }).observe({ type: 'paint', buffered: true }))`,
  )
  return ms as number
}
const movedBytes = (page: Page) =>
  page.evaluate(
    `performance.getEntries().filter((e) => 'transferSize' in e).reduce((sum, e) => sum + e.transferSize, 0)`,
  ) as Promise<number>

export async function benchPage(runs = 15): Promise<Record<string, number | string>> {
  const daemon = await startDaemon()
  const floor = createServer((_req, res) => res.end('<!doctype html><title>floor</title><p>One line of text.</p>')).listen(0, '127.0.0.1')
  await new Promise((r) => floor.once('listening', r))
  const floorUrl = `http://localhost:${(floor.address() as { port: number }).port}/`
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...ARGS, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
  })
  try {
    const measure = async (url: string) => {
      const first: number[] = []
      const again: number[] = []
      let bytes = 0
      for (let i = 0; i <= runs; i++) {
        const context = await browser.newContext()
        const page = await context.newPage()
        await page.goto(url)
        const ms = await paintMs(page)
        bytes = await movedBytes(page)
        await page.reload()
        // The first round warms the browser's processes up and is not counted.
        if (i > 0) {
          first.push(ms)
          again.push(await paintMs(page))
        }
        await context.close()
      }
      return { first, again, bytes }
    }
    const page = await measure(`http://localhost:${new URL(daemon.url).port}/`)
    const base = await measure(floorUrl)
    return {
      'household page, first visit: first contentful paint ms, median': Math.round(median(page.first)),
      'household page, reload (304s): first contentful paint ms, median': Math.round(median(page.again)),
      'household page, first visit: bytes moved': page.bytes,
      'baseline (one line of text, node:http): first visit ms, median': Math.round(median(base.first)),
      'baseline: reload ms, median': Math.round(median(base.again)),
      'household page, first visit ms, all runs': page.first.map(Math.round).join(' '),
    }
  } finally {
    await browser.close()
    floor.close()
    await daemon.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await benchPage(Number(process.argv[2] ?? 15)))
