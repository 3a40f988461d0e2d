import t from 'tap'
import { formatCanonicalDate, formatVCardDate, parseCanonicalDate, parseVCardDate } from '../../lib/vcard/dates.js'

t.test('canonical dates: YYYY-MM-DD or --MM-DD, real days only', async (t) => {
  for (const good of ['1985-04-12', '--04-12', '--02-29', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) {
    const d = parseCanonicalDate(good)
    t.ok(d, good)
    t.equal(formatCanonicalDate(d as never), good, `${good} written back the same`)
  }
  for (const bad of [
    '2023-02-29',
    '1900-02-29',
    '--02-30',
    '--04-31',
    '2024-13-01',
    '2024-00-01',
    '0000-01-01',
    '1985-4-12',
    '19850412',
    '--0412',
    '---04-12',
    '',
    '1985-04-12T00:00:00Z',
  ]) {
    t.equal(parseCanonicalDate(bad), null, JSON.stringify(bad))
  }
})

t.test('vCard values: basic and extended forms, date-times, Apple year 1604', async (t) => {
  const cases: Array<[string, string | undefined, string | null]> = [
    ['19850412', undefined, '1985-04-12'],
    ['1985-04-12', undefined, '1985-04-12'],
    ['1985-04-12T10:00:00Z', undefined, '1985-04-12'],
    ['19850412T100000', undefined, '1985-04-12'],
    ['--0412', undefined, '--04-12'],
    ['--04-12', undefined, '--04-12'],
    ['1604-02-29', '1604', '--02-29'],
    ['1604-04-12', '1604', '--04-12'],
    ['1604-04-12', undefined, '1604-04-12'],
    ['circa 1800', undefined, null],
    ['20230229', undefined, null],
    ['--0230', undefined, null],
  ]
  for (const [value, omit, want] of cases) {
    const d = parseVCardDate(value, omit)
    t.equal(d ? formatCanonicalDate(d) : null, want, `${value} ${omit ?? ''}`)
  }
})

t.test('written per version: 4.0 basic and --MMDD, 3.0 extended and Apple year 1604', async (t) => {
  t.same(formatVCardDate({ year: 1985, month: 4, day: 12 }, '4.0'), { value: '19850412', params: [] })
  t.same(formatVCardDate({ year: null, month: 2, day: 29 }, '4.0'), { value: '--0229', params: [] })
  t.same(formatVCardDate({ year: 1985, month: 4, day: 12 }, '3.0'), { value: '1985-04-12', params: [] })
  t.same(formatVCardDate({ year: null, month: 2, day: 29 }, '3.0'), { value: '1604-02-29', params: [['X-APPLE-OMIT-YEAR', '1604']] })
  // Each written form reads back as the same date.
  for (const version of ['3.0', '4.0'] as const) {
    for (const date of ['1985-04-12', '--02-29', '0044-03-15']) {
      const d = parseCanonicalDate(date) as never
      const { value, params } = formatVCardDate(d, version)
      const back = parseVCardDate(value, params.find(([k]) => k === 'X-APPLE-OMIT-YEAR')?.[1])
      t.equal(back ? formatCanonicalDate(back) : null, date, `${date} via ${version}`)
    }
  }
})
