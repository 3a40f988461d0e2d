import t from 'tap'
import { statusMap } from '../../core/status-map.js'

t.test('statusMap keeps the entries, their values and the order integer keys enumerate in', async (t) => {
  const schema = { type: 'object' }
  const map = statusMap<unknown>([
    ['503', 'unavailable'],
    ['200', schema],
    ['2xx', 'range'],
    ['default', 'other'],
  ])
  t.same(Object.keys(map), ['200', '503', '2xx', 'default'])
  t.equal(map['200'], schema)
  t.equal(map[503], 'unavailable')
  t.same(Object.keys(map), Object.keys(Object.fromEntries(Object.entries(map))))
  t.notOk(Object.hasOwn(map, String(2 ** 24)), 'the switching index is gone')
  t.equal(JSON.stringify(map), '{"200":{"type":"object"},"503":"unavailable","2xx":"range","default":"other"}')
  map['404'] = 'missing'
  t.same(Object.keys(map), ['200', '404', '503', '2xx', 'default'])
})
