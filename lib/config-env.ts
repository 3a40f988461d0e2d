import type { TSchema } from '@sinclair/typebox'

/**
 * Names the environment variable a config property is read from: `env('HEARTH_PORT', Type.Integer())`.
 * The config reader takes each property from its variable (or the schema's default) and names the
 * variable in every problem it reports.
 */
export const env = <T extends TSchema>(name: string, schema: T): T => ({ ...schema, env: name })
