import { execFileSync } from 'node:child_process'
import t from 'tap'
import { plist } from '../../lib/plist.js'

/** Read back by a real plist reader: python3's plistlib (the format's reference outside Apple's own tools). */
const readBack = (text: string): unknown =>
  JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import sys, json, plistlib, base64\nv = plistlib.loads(sys.stdin.buffer.read())\nprint(json.dumps(v, default=lambda b: {"data": base64.b64encode(b).decode()}))',
      ],
      { input: text },
    ).toString(),
  )

t.test('every kind of value round-trips through plistlib', async (t) => {
  const value = {
    name: 'Ann & <Bob> "quoted" ünïcode 🙂',
    port: 443,
    negative: -7,
    tls: true,
    off: false,
    bytes: Buffer.from([0, 1, 2, 250, 255]),
    list: ['a', 1, { nested: [true] }],
    empty: {},
  }
  t.same(readBack(plist(value)), { ...value, bytes: { data: Buffer.from([0, 1, 2, 250, 255]).toString('base64') } })
})

t.test('characters XML cannot carry are dropped, not written into a document no reader opens', async (t) => {
  t.same(readBack(plist({ s: 'a\u0000b\u0007c\td\ne' })), { s: 'abc\td\ne' })
})

t.test('no floats: a profile has none, and a silent rounding would be a wrong port', async (t) => {
  t.throws(() => plist({ port: 1.5 }), /integers only/)
})
