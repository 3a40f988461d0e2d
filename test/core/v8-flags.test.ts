import t from 'tap'
import { operatorChose } from '../../core/v8-flags.js'

/** The daemon's V8 tuning leaves alone a flag the operator gave node, in any spelling V8 accepts. */
t.test('a V8 flag is found in node arguments or NODE_OPTIONS, in every spelling', async (t) => {
  const execArgv = process.execArgv
  const options = process.env.NODE_OPTIONS
  t.teardown(() => {
    process.execArgv.splice(0, process.execArgv.length, ...execArgv)
    if (options === undefined) delete process.env.NODE_OPTIONS
    else process.env.NODE_OPTIONS = options
  })
  const given = (args: string[], nodeOptions = '') => {
    process.execArgv.splice(0, process.execArgv.length, ...args)
    process.env.NODE_OPTIONS = nodeOptions
  }
  for (const spelling of ['--turbofan', '--no-turbofan', '--no_turbofan', '--noturbofan', '--no-turbofan=1']) {
    given([spelling])
    t.ok(operatorChose('turbofan'), `${spelling} in node's arguments`)
  }
  given([], '--max-old-space-size=200 --optimize_for_size')
  t.ok(operatorChose('optimize-for-size'), 'in NODE_OPTIONS, with underscores')
  given(['--turbofan-filter=x', '--max-semi-space-size=4'], '--enable-source-maps')
  t.notOk(operatorChose('turbofan'), 'another flag starting with the same name is not it')
  t.notOk(operatorChose('optimize-for-size', 'sparkplug'))
})
