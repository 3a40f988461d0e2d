// The household page: signs a member in and lets them manage their devices, second factor, passkeys,
// password and sessions through the daemon's own JSON API. Text only ever goes into the DOM as text
// (textContent, attributes): the page's Content-Security-Policy requires Trusted Types and allows none.
//
// Tokens: the access token lives in this module's memory only. The refresh token is kept in
// sessionStorage so a reload of this tab stays signed in while closing the tab forgets it; it is never
// sent automatically (no cookie), so no other site can make the browser use it (docs/security.md).

const API = '/api/v1'
const REFRESH_KEY = 'hearth.refreshToken'
const $ = (id) => document.getElementById(id)

let accessToken = null
let refreshing = null
let mfaToken = null
let pendingTotpPassword = null

class ApiError extends Error {
  constructor(status, error) {
    super(error?.message || `The request failed (${status})`)
    this.status = status
    this.code = error?.code
  }
}

/** The session ended during a call: the sign-in form is already back with a notice saying so. */
class SignedOut extends Error {
  constructor() {
    super('Your session ended. Sign in again.')
  }
}

function describe(err) {
  if (err instanceof ApiError && err.code === 'RATE_LIMITED') return 'Too many tries. Wait a minute, then try again.'
  if (err instanceof ApiError) return err.message
  if (err?.name === 'NotAllowedError') return 'The passkey request was cancelled or timed out.'
  return err?.message || 'Something went wrong.'
}

async function send(method, path, body, auth) {
  const headers = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (auth && accessToken) headers.authorization = `Bearer ${accessToken}`
  return fetch(API + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  })
}

/** One API call; a 401 with a stale access token is retried once after a refresh. `raw` answers the Response. */
async function api(method, path, body, { auth = true, raw = false } = {}) {
  let res = await send(method, path, body, auth)
  if (res.status === 401 && auth) {
    if (!(await refresh())) {
      const ended = new SignedOut()
      signedOut(ended.message)
      throw ended
    }
    res = await send(method, path, body, auth)
  }
  if (raw && res.ok) return res
  const json = await res.json().catch(() => ({}))
  if (!res.ok) throw new ApiError(res.status, json.error)
  return json.data
}

/** Exchanges the kept refresh token for new tokens, once at a time (each refresh token works once). */
function refresh() {
  refreshing ??= (async () => {
    const token = sessionStorage.getItem(REFRESH_KEY)
    if (!token) return false
    const res = await send('POST', '/auth/refresh', { refresh_token: token }, false).catch(() => null)
    if (!res?.ok) {
      if (res?.status === 401) sessionStorage.removeItem(REFRESH_KEY)
      return false
    }
    keep((await res.json()).data)
    return true
  })().finally(() => (refreshing = null))
  return refreshing
}

function keep(session) {
  accessToken = session.accessToken
  sessionStorage.setItem(REFRESH_KEY, session.refreshToken)
  $('who-email').textContent = session.user.email
  $('pw-username').value = session.user.email
}

function say(text) {
  $('notice').textContent = text
}

// ---- views ----

function showSignIn() {
  $('home').hidden = true
  $('who').hidden = true
  $('signin').hidden = false
  $('password-form').hidden = false
  $('mfa-form').hidden = true
  $('password-form').reset()
  $('email').focus()
}

function signedOut(message) {
  accessToken = null
  mfaToken = null
  sessionStorage.removeItem(REFRESH_KEY)
  showSignIn()
  say(message)
}

async function showHome() {
  $('signin').hidden = true
  $('home').hidden = false
  $('who').hidden = false
  await Promise.all([loadDevices(), loadTwoFactor(), loadPasskeys(), loadSessions()])
}

async function signedIn(session) {
  keep(session)
  say('Signed in.')
  await showHome()
  $('devices-title').focus()
}

// ---- forms ----

function onSubmit(formId, errorId, action) {
  const form = $(formId)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const button = form.querySelector('button[type=submit]')
    $(errorId).textContent = ''
    button.disabled = true
    try {
      await action(Object.fromEntries(new FormData(form)), form)
    } catch (err) {
      if (!(err instanceof SignedOut)) $(errorId).textContent = describe(err)
    } finally {
      button.disabled = false
    }
  })
}

onSubmit('password-form', 'signin-error', async ({ email, password }) => {
  if (!email || !password) throw new Error('Enter your email and password.')
  const answer = await api('POST', '/auth/login', { email, password }, { auth: false })
  if (!answer.mfa_required) return signedIn(answer)
  mfaToken = answer.mfa_token
  $('password-form').hidden = true
  $('mfa-form').hidden = false
  $('mfa-code').value = ''
  $('mfa-code').focus()
})

onSubmit('mfa-form', 'mfa-error', async ({ code }) => {
  if (!code.trim()) throw new Error('Enter a code.')
  const session = await api('POST', '/auth/login/mfa', { mfa_token: mfaToken, code: code.trim() }, { auth: false })
  mfaToken = null
  await signedIn(session)
})

$('mfa-back').addEventListener('click', () => {
  mfaToken = null
  $('mfa-error').textContent = ''
  showSignIn()
})

$('sign-out').addEventListener('click', async () => {
  const token = sessionStorage.getItem(REFRESH_KEY)
  if (token) await send('POST', '/auth/logout', { refresh_token: token }, false).catch(() => null)
  signedOut('Signed out.')
})

// ---- lists ----

const when = (iso) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never')

/** A list row: a title, a line of details and a button whose accessible name says what it acts on. */
function row(title, details, buttonText, buttonLabel, onClick) {
  const li = document.createElement('li')
  const info = document.createElement('div')
  const name = document.createElement('strong')
  name.textContent = title
  const meta = document.createElement('span')
  meta.className = 'meta'
  meta.textContent = details
  info.append(name, meta)
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'quiet danger'
  button.textContent = buttonText
  button.setAttribute('aria-label', buttonLabel)
  button.addEventListener('click', async () => {
    button.disabled = true
    try {
      await onClick()
      // The row is gone with its button: the keyboard continues from the message that says what happened.
      if (!button.isConnected) $('notice').focus()
    } catch (err) {
      say(describe(err))
      button.disabled = false
    }
  })
  li.append(info, button)
  return li
}

async function loadDevices() {
  const devices = await api('GET', '/auth/app-passwords')
  $('devices').replaceChildren(
    ...devices.map((d) =>
      row(d.name, `Added ${when(d.created_at)} · last used ${when(d.last_used_at)}`, 'Remove', `Remove ${d.name}`, async () => {
        await api('DELETE', `/auth/app-passwords/${d.id}`)
        say(`${d.name} removed: it can no longer sync.`)
        await loadDevices()
      }),
    ),
  )
  $('devices-empty').hidden = devices.length > 0
}

const BROWSERS = [
  [/Edg\//, 'Edge'],
  [/Firefox\//, 'Firefox'],
  [/Chrom(e|ium)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
]
const SYSTEMS = [
  [/iPhone|iPad/, 'iOS'],
  [/Android/, 'Android'],
  [/Mac OS X/, 'macOS'],
  [/Windows/, 'Windows'],
  [/Linux/, 'Linux'],
]

/** "Firefox on Android" from a User-Agent; its start when it names no browser we know. */
function clientName(ua) {
  if (!ua) return 'Unknown app'
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1]
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1]
  if (!browser) return ua.slice(0, 60)
  return system ? `${browser} on ${system}` : browser
}

async function loadSessions() {
  const sessions = await api('GET', '/auth/sessions')
  $('sessions').replaceChildren(
    ...sessions.map((s) => {
      const name = s.current ? `This browser (${clientName(s.client)})` : clientName(s.client)
      const details = `Signed in ${when(s.created_at)} · last active ${when(s.last_used_at)}${s.address ? ` · ${s.address}` : ''}`
      return row(name, details, 'Sign out', `Sign out ${name}, signed in ${when(s.created_at)}`, async () => {
        if (s.current) return $('sign-out').click()
        await api('DELETE', `/auth/sessions/${s.id}`)
        say(`${name} signed out.`)
        await loadSessions()
      })
    }),
  )
}

// ---- adding a device ----

onSubmit('device-form', 'device-error', async ({ name, kind }, form) => {
  name = name.trim()
  if (!name) throw new Error('Give the device a name, such as “Anna’s iPhone”.')
  $('apple-result').hidden = true
  $('davx5-result').hidden = true
  if (kind === 'apple') {
    const res = await api('POST', '/devices/apple-profile', { name }, { raw: true })
    const url = URL.createObjectURL(await res.blob())
    const link = document.createElement('a')
    link.href = url
    link.download = 'hearth.mobileconfig'
    link.click()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
    $('apple-result').hidden = false
  } else {
    const details = await api('POST', '/devices/davx5', { name })
    $('davx5-url').textContent = details.url
    $('davx5-username').textContent = details.username
    $('davx5-password').textContent = details.password
    $('davx5-result').hidden = false
  }
  $('device-result').hidden = false
  $('device-result').focus()
  form.reset()
  await loadDevices()
})

// ---- two-step sign-in ----

async function loadTwoFactor() {
  const status = await api('GET', '/auth/2fa')
  $('tfa-status').textContent = status.enabled
    ? `On: signing in asks for a code from your authenticator app. ${status.recovery_codes_left} recovery codes left.`
    : 'Off: your password alone signs you in.'
  $('tfa-start').hidden = status.enabled || !$('tfa-confirm').hidden
  $('tfa-off').hidden = !status.enabled
}

/** Draws the QR code as SVG elements (no markup parsed), from the vendored qrcode-generator loaded on demand. */
async function drawQr(text) {
  const { default: qrcode } = await import('/assets/vendor/qrcode.mjs')
  const qr = qrcode(0, 'M')
  qr.addData(text)
  qr.make()
  const size = qr.getModuleCount()
  let path = ''
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (qr.isDark(r, c)) path += `M${c + 4} ${r + 4}h1v1h-1z`
  const ns = 'http://www.w3.org/2000/svg'
  const svg = document.createElementNS(ns, 'svg')
  svg.setAttribute('viewBox', `0 0 ${size + 8} ${size + 8}`)
  svg.setAttribute('aria-hidden', 'true')
  svg.setAttribute('shape-rendering', 'crispEdges')
  const back = document.createElementNS(ns, 'rect')
  back.setAttribute('width', '100%')
  back.setAttribute('height', '100%')
  back.setAttribute('fill', '#fff')
  const dots = document.createElementNS(ns, 'path')
  dots.setAttribute('d', path)
  dots.setAttribute('fill', '#000')
  svg.append(back, dots)
  $('tfa-qr').replaceChildren(svg)
}

onSubmit('tfa-start', 'tfa-start-error', async ({ password }, form) => {
  if (!password) throw new Error('Enter your password.')
  const setup = await api('POST', '/auth/2fa/totp/setup', { password })
  pendingTotpPassword = password
  await drawQr(setup.otpauth_url)
  $('tfa-secret').textContent = setup.secret.replace(/(.{4})/g, '$1 ').trim()
  form.reset()
  form.hidden = true
  $('tfa-codes').hidden = true
  $('tfa-confirm').hidden = false
  $('tfa-code').focus()
})

onSubmit('tfa-confirm', 'tfa-confirm-error', async ({ code }, form) => {
  if (!code.trim()) throw new Error('Enter the code your app shows.')
  const { recovery_codes } = await api('POST', '/auth/2fa/totp/confirm', { password: pendingTotpPassword, code: code.trim() })
  pendingTotpPassword = null
  form.reset()
  form.hidden = true
  $('tfa-code-list').replaceChildren(
    ...recovery_codes.map((c) => {
      const li = document.createElement('li')
      li.textContent = c
      return li
    }),
  )
  $('tfa-codes').hidden = false
  $('tfa-codes').focus()
  await Promise.all([loadTwoFactor(), loadSessions()])
})

$('tfa-cancel').addEventListener('click', () => {
  pendingTotpPassword = null
  $('tfa-confirm').reset()
  $('tfa-confirm').hidden = true
  $('tfa-start').hidden = false
})

onSubmit('tfa-off', 'tfa-off-error', async ({ password, code }, form) => {
  await api('DELETE', '/auth/2fa/totp', { password, code: code.trim() })
  form.reset()
  $('tfa-codes').hidden = true
  say('Two-step sign-in is off.')
  await loadTwoFactor()
})

// ---- passkeys ----

// Passkeys need the browser's WebAuthn and the daemon's public host name (GET /auth/status says `passkeys`).
const browserHasPasskeys = typeof window.PublicKeyCredential === 'function'
const authStatus = fetch(`${API}/auth/status`, { cache: 'no-store' })
  .then((res) => (res.ok ? res.json() : {}))
  .then((json) => json.data ?? {})
  .catch(() => ({}))
const passkeysOn = authStatus.then((s) => browserHasPasskeys && s.passkeys === true)

/** The vendored @simplewebauthn/browser (a UMD file: loaded as a module, it sets a global). */
async function webauthn() {
  await import('/assets/vendor/webauthn.js')
  return globalThis.SimpleWebAuthnBrowser
}

async function loadPasskeys() {
  if (!(await passkeysOn)) return
  const list = await api('GET', '/auth/webauthn/credentials')
  $('passkeys').hidden = false
  $('passkey-list').replaceChildren(
    ...list.map((k) =>
      row(k.name, `Added ${when(k.created_at)} · last used ${when(k.last_used_at)}`, 'Remove', `Remove passkey ${k.name}`, async () => {
        await api('DELETE', `/auth/webauthn/credentials/${k.id}`)
        say(`Passkey ${k.name} removed.`)
        await loadPasskeys()
      }),
    ),
  )
}

onSubmit('passkey-form', 'passkey-error', async ({ name }, form) => {
  name = name.trim()
  if (!name) throw new Error('Give the passkey a name, such as “Laptop”.')
  const lib = await webauthn()
  const optionsJSON = await api('POST', '/auth/webauthn/register/options')
  const response = await lib.startRegistration({ optionsJSON })
  await api('POST', '/auth/webauthn/register', { response, name })
  form.reset()
  say(`Passkey ${name} added.`)
  await loadPasskeys()
})

$('passkey-signin').addEventListener('click', async () => {
  const button = $('passkey-signin')
  button.disabled = true
  $('signin-error').textContent = ''
  try {
    const lib = await webauthn()
    const email = $('email').value.trim()
    const optionsJSON = await api('POST', '/auth/webauthn/login/options', email ? { email } : {}, { auth: false })
    const response = await lib.startAuthentication({ optionsJSON })
    await signedIn(await api('POST', '/auth/webauthn/login', { response }, { auth: false }))
  } catch (err) {
    $('signin-error').textContent = describe(err)
  } finally {
    button.disabled = false
  }
})

// ---- password ----

onSubmit('password-change', 'pw-error', async ({ current, new: next, again }, form) => {
  if (next !== again) throw new Error('The two new passwords differ.')
  if (next.length < 8) throw new Error('The new password needs at least 8 characters.')
  keep(await api('POST', '/auth/password', { current_password: current, new_password: next }))
  form.reset()
  say('Password changed. Your other sessions were signed out and your devices’ passwords ended: add the devices again.')
  await Promise.all([loadSessions(), loadDevices()])
})

// ---- start ----

passkeysOn.then((on) => ($('passkey-signin-box').hidden = !on))
if (sessionStorage.getItem(REFRESH_KEY)) {
  $('signin').hidden = true
  try {
    if (await refresh()) await showHome()
    else showSignIn()
  } catch (err) {
    say(describe(err))
  }
} else {
  authStatus.then((s) => {
    if (s.mode === 'setup') say('This Hearth has no account yet: its administrator creates the first one (hearth setup).')
  })
}
