import { contacts } from './contacts.js'
import { events } from './events.js'
import { notes } from './notes.js'
import { tasks } from './tasks.js'

/** Every records resource; a new one is a definition file, a migration and one line here. */
export const resources = { notes, contacts, events, tasks }
