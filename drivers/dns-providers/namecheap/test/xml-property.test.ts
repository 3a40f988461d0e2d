import fc from 'fast-check'
import t from 'tap'
import { apiStatus, elements, text } from '../xml.js'

/**
 * The Namecheap reply reader on arbitrary and hostile text: it never throws, and its work is linear
 * (a reply of 256 KB of any repeated fragment is read, which the regular expressions it replaced
 * could not do in time: `<Host` without `>`, attribute names without `=`).
 */
const xmlish = fc.array(
  fc.oneof(
    fc.constantFrom(
      '<ApiResponse Status="OK">',
      '</ApiResponse>',
      '<Error Number="1">',
      '</Error>',
      '<host Name="a" Type="A" Address="1.2.3.4" />',
      '<Host',
      'Name=',
      '"',
      '>',
      '&amp;',
      '&#x41;',
    ),
    fc.string(),
  ),
  { maxLength: 30 },
)

t.test('any reply is read or yields nothing, never a throw, in linear time', async (t) => {
  fc.assert(
    fc.property(xmlish, (parts) => {
      const xml = parts.join('')
      elements(xml, 'host')
      text(xml, 'Error')
      apiStatus(xml)
      return true
    }),
    { numRuns: 1000 },
  )
  for (const fragment of ['<Host ', 'Name'.repeat(10), '<Error>', 'a="', '<host x', '&#x4']) {
    const xml = fragment.repeat(Math.ceil((256 * 1024) / fragment.length))
    t.doesNotThrow(() => [elements(xml, 'host'), text(xml, 'Error'), apiStatus(xml)], `256 KB of ${JSON.stringify(fragment)}`)
  }
  t.same(elements('<x/><Host Name="www" TTL=\'60\'/><hosts/>', 'host'), [{ Name: 'www', TTL: '60' }])
  t.same(apiStatus('<ApiResponse Status="ERROR"><Errors><Error Number="2011166">Bad &amp; wrong</Error></Errors></ApiResponse>'), {
    ok: false,
    errors: [{ number: '2011166', message: 'Bad & wrong' }],
  })
})
