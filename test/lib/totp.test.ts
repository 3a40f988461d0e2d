import t from 'tap'
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUrl, totpStep } from '../../lib/totp.js'

// RFC 6238 appendix B: the SHA-1 seed and its 8-digit codes; an app's 6-digit code is their last six.
const SEED = Buffer.from('12345678901234567890')
const VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
]

t.test('RFC 6238 test vectors (SHA-1), at 8 digits and at the 6 apps show', async (t) => {
  for (const [seconds, code] of VECTORS) {
    t.equal(hotp(SEED, totpStep(seconds * 1000), 8), code, `T=${seconds}`)
    t.equal(matchTotp(SEED, code.slice(2), seconds * 1000), totpStep(seconds * 1000), `6 digits at T=${seconds}`)
  }
})

t.test('RFC 4226 appendix D: HOTP values of counters 0 to 9', async (t) => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489']
  t.same(
    expected.map((_, i) => hotp(SEED, i)),
    expected,
  )
})

t.test('one step of drift either way, never two; a step at or before `after` is refused', async (t) => {
  const at = 1_700_000_000_000
  const step = totpStep(at)
  const code = (s: number) => hotp(SEED, s)
  t.equal(matchTotp(SEED, code(step - 1), at), step - 1)
  t.equal(matchTotp(SEED, code(step + 1), at), step + 1)
  t.equal(matchTotp(SEED, code(step - 2), at), null)
  t.equal(matchTotp(SEED, code(step + 2), at), null)
  t.equal(matchTotp(SEED, code(step), at, { after: step }), null, 'the step already used')
  t.equal(matchTotp(SEED, code(step + 1), at, { after: step }), step + 1, 'a later step still works')
  for (const bad of ['', '12345', '1234567', 'abcdef', ' 12345'])
    t.equal(matchTotp(SEED, bad, at), null, `malformed ${JSON.stringify(bad)}`)
})

t.test('base32 (RFC 4648 section 10 vectors) both ways; bad characters are refused', async (t) => {
  const vectors: Array<[string, string]> = [
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ]
  for (const [plain, encoded] of vectors) {
    t.equal(base32Encode(Buffer.from(plain)), encoded)
    t.equal(base32Decode(`${encoded.toLowerCase()}==`)?.toString(), plain)
  }
  t.equal(base32Decode('MZ1W'), null)
})

t.test('the otpauth URI names issuer and account and carries the parameters', async (t) => {
  const url = new URL(otpauthUrl({ secret: 'GEZDGNBVGY3TQOJQ', issuer: 'Hearth', account: 'a b@example.test' }))
  t.equal(url.protocol, 'otpauth:')
  t.equal(url.host, 'totp')
  t.equal(decodeURIComponent(url.pathname), '/Hearth:a b@example.test')
  t.equal(url.searchParams.get('secret'), 'GEZDGNBVGY3TQOJQ')
  t.equal(url.searchParams.get('issuer'), 'Hearth')
  t.equal(url.searchParams.get('digits'), '6')
  t.equal(url.searchParams.get('period'), '30')
  t.equal(url.searchParams.get('algorithm'), 'SHA1')
})
