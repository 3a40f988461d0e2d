import t from 'tap'
import { household } from './sharing-app.js'

/**
 * Attacks on sharing by the members of one household, each with their own credentials: what a
 * share lets a member reach must stop at the collection shared, whatever record an id, a parent or
 * a file names.
 */

const NOBODY = '00000000-0000-4000-8000-000000000000'

t.test('a subtask written through a shared task list cannot hang under the owner’s private tasks', async (t) => {
  const { members } = await household(t)
  const [parent, kid] = members
  await parent.call('POST', '/shares', { kind: 'tasklist', name: 'Home', with: kid.id, access: 'write' })
  const secret = (await parent.call('POST', '/tasks', { title: 'Buy the bike (hide it)', list_name: 'Private' })).body.data
  const chores = (await parent.call('POST', '/tasks', { title: 'Chores', list_name: 'Home' })).body.data

  const under = await kid.call('POST', '/tasks', { title: 'peek', list_name: 'Home', owner_id: parent.id, parent_id: secret.id })
  const nowhere = await kid.call('POST', '/tasks', { title: 'peek', list_name: 'Home', owner_id: parent.id, parent_id: NOBODY })
  t.equal(under.status, 400, 'a parent in a list not shared with the writer: refused')
  t.same(under.body.error, nowhere.body.error, 'exactly as a parent that does not exist (its existence is not told)')
  t.equal((await kid.call('PATCH', `/tasks/${chores.id}`, { parent_id: secret.id })).status, 400, 'nor moved under one by an update')
  t.equal((await parent.call('GET', `/tasks?parent_id=${secret.id}`)).body.meta.total, 0, 'the private task gained no subtask')

  const sub = await kid.call('POST', '/tasks', { title: 'Dishes', list_name: 'Home', owner_id: parent.id, parent_id: chores.id })
  t.equal(sub.status, 201, 'a parent in the shared list is fine')
  t.equal(
    (await parent.call('POST', '/tasks', { title: 'Mine', list_name: 'Private', parent_id: chores.id })).status,
    201,
    'and the owner links their own tasks across their lists as before',
  )
})
