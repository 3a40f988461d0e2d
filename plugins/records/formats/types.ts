/**
 * The record shapes the format modules read and write: the fields of the
 * REST API's notes, contacts and events (api.md, Resources) that a file can
 * carry. Parsers produce create bodies plus the extras a file may hold
 * (archived, timestamps, source); serializers take records as the API returns them.
 */

import type { Recurrence } from '../../../lib/ical/recurrence.js'
import type { StoredProperty } from '../engine/properties.js'
import type { InlinePhoto } from './vcard-photo.js'

export type CustomFields = Record<string, unknown> | null

export interface NoteRecord {
  title: string | null
  content: string
  content_format: 'markdown' | 'html' | 'plain'
  tags: string[]
  pinned: boolean
  archived: boolean
  custom_fields: CustomFields
  source?: string | null
  created_at?: string
  updated_at?: string
}

export interface ContactEmail {
  address: string
  label: 'work' | 'personal' | 'other'
  primary: boolean
}

export interface ContactPhone {
  number: string
  label: 'mobile' | 'work' | 'home' | 'other'
  primary: boolean
}

export interface ContactAddress {
  street: string | null
  city: string | null
  state: string | null
  postal_code: string | null
  country: string | null
  label: string | null
}

export interface ContactRecord {
  display_name: string
  first_name: string | null
  last_name: string | null
  emails: ContactEmail[]
  phones: ContactPhone[]
  company: string | null
  job_title: string | null
  addresses: ContactAddress[]
  notes: string | null
  avatar_path: string | null
  tags: string[]
  nickname: string | null
  /** YYYY-MM-DD, or --MM-DD without a year. */
  birthday: string | null
  anniversary: string | null
  urls: ContactUrl[]
  groups: string[]
  custom_fields: CustomFields
  source?: string | null
  created_at?: string
  updated_at?: string
}

export interface ContactUrl {
  url: string
  label: string | null
}

export interface EventRecord {
  title: string
  description: string | null
  location: string | null
  start_at: string
  end_at: string | null
  all_day: boolean
  recurrence: Recurrence | null
  status: 'confirmed' | 'tentative' | 'cancelled'
  calendar_name: string
  /** IANA zone of the wall-clock times and the recurrence (absent: the instance's zone). */
  timezone?: string
  /** An overridden occurrence (RECURRENCE-ID): its series' id once linked, and the start it replaces. */
  recurrence_id?: string | null
  occurrence_start?: string | null
  /** While importing: the UID of the series an override belongs to (linked to recurrence_id by the import). */
  series_uid?: string
  reminders: Array<{ type: string; minutes_before: number }>
  attendees: Array<{ email: string; name: string | null; status: 'accepted' | 'declined' | 'tentative' | 'pending' }>
  custom_fields: CustomFields
  source?: string | null
  created_at?: string
  updated_at?: string
}

export interface TaskRecord {
  title: string
  description: string | null
  status: 'needs-action' | 'in-process' | 'completed' | 'cancelled'
  due_at: string | null
  start_at: string | null
  all_day: boolean
  completed_at: string | null
  priority: number
  list_name: string
  parent_id?: string | null
  tags: string[]
  recurrence: Recurrence | null
  reminders: Array<{ type: string; minutes_before: number }>
  /** IANA zone of the wall-clock times and the recurrence (absent: the instance's zone). */
  timezone?: string
  custom_fields: CustomFields
  /** While importing: the UID of the parent task (RELATED-TO), linked to parent_id by the import. */
  parent_uid?: string
  source?: string | null
  created_at?: string
  updated_at?: string
}

/** One parsed entry of an import file, located for error reports. */
export interface ParsedEntry<T> {
  /** 0-based position of the entry in the file. */
  index: number
  /** 1-based line where the entry starts (text formats). */
  line?: number
  /** Zip member name (Markdown archives). */
  file?: string
  record: T
  /** Properties of the entry Hearth has no field for, kept aside and written back on export. */
  properties?: StoredProperty[]
  /** A contact's inline vCard PHOTO, as the file carried it (re-encoded before it is stored). */
  photo?: InlinePhoto
}

export interface ParseFailure {
  /** Absent for lines outside any entry. */
  index?: number
  line?: number
  file?: string
  error: string
}

export interface ParseResult<T> {
  entries: ParsedEntry<T>[]
  failed: ParseFailure[]
}

/** A contact's optional fields at their defaults, fresh arrays each call: the resource and the vCard reader share it. */
export function contactDefaults(): Omit<ContactRecord, 'display_name'> {
  return {
    first_name: null,
    last_name: null,
    emails: [],
    phones: [],
    company: null,
    job_title: null,
    addresses: [],
    notes: null,
    avatar_path: null,
    tags: [],
    nickname: null,
    birthday: null,
    anniversary: null,
    urls: [],
    groups: [],
    custom_fields: null,
  }
}
