/**
 * The examples the OpenAPI document shows for each resource: a create body and
 * the record the API answers for it (Redocly checks both against the schemas;
 * test/core/openapi.test.ts posts each create example and compares the answer).
 */
const managed = {
  custom_fields: null,
  source: 'local',
  created_at: '2026-11-24T09:30:00.000Z',
  updated_at: '2026-11-24T09:30:00.000Z',
  deleted_at: null,
  etag: '"1"',
}

export const examples = {
  notes: {
    create: { content: '# Boiler service\n\nCall on Monday; the filter is in the garage.', tags: ['house'], pinned: true },
    record: {
      id: '3f0e5f0a-6c55-4c1e-9a84-2f3b1d8f4a10',
      owner_id: '0d6f1c2e-7a3b-4c5d-9e8f-1a2b3c4d5e6f',
      title: 'Boiler service',
      content: '# Boiler service\n\nCall on Monday; the filter is in the garage.',
      content_format: 'markdown',
      tags: ['house'],
      pinned: true,
      archived: false,
      ...managed,
    },
  },
  contacts: {
    create: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      emails: [{ address: 'ada@example.org', label: 'work', primary: true }],
      phones: [{ number: '+44 20 7946 0000' }],
      tags: ['family'],
    },
    record: {
      id: '8c1d2b9e-0f4a-4d7e-b1a2-5e6f7a8b9c0d',
      owner_id: '0d6f1c2e-7a3b-4c5d-9e8f-1a2b3c4d5e6f',
      display_name: 'Ada Lovelace',
      first_name: 'Ada',
      last_name: 'Lovelace',
      emails: [{ address: 'ada@example.org', label: 'work', primary: true }],
      phones: [{ number: '+44 20 7946 0000', label: 'other', primary: false }],
      company: null,
      job_title: null,
      addresses: [],
      notes: null,
      avatar_path: null,
      tags: ['family'],
      ...managed,
    },
  },
  events: {
    create: {
      title: 'Swimming lesson',
      start_at: '2026-12-01T17:00:00.000Z',
      end_at: '2026-12-01T18:00:00.000Z',
      timezone: 'Europe/Paris',
      recurrence: { freq: 'WEEKLY', byday: ['TU'], count: 10, exdates: ['2026-12-22T17:00:00.000Z'] },
      reminders: [{ type: 'notification', minutes_before: 30 }],
    },
    record: {
      id: '5b7c9d1e-2f3a-4b5c-8d9e-0a1b2c3d4e5f',
      owner_id: '0d6f1c2e-7a3b-4c5d-9e8f-1a2b3c4d5e6f',
      title: 'Swimming lesson',
      description: null,
      location: null,
      start_at: '2026-12-01T17:00:00.000Z',
      end_at: '2026-12-01T18:00:00.000Z',
      all_day: false,
      recurrence: { freq: 'WEEKLY', byday: ['TU'], count: 10, exdates: ['2026-12-22T17:00:00.000Z'] },
      status: 'confirmed',
      calendar_name: 'default',
      timezone: 'Europe/Paris',
      recurrence_id: null,
      occurrence_start: null,
      reminders: [{ type: 'notification', minutes_before: 30 }],
      attendees: [],
      ...managed,
    },
  },
}
