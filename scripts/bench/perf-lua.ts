/** Pieces of the wrk Lua scripts the perf bench runs (wrk's LuaJIT reads the strings written here). */
import { createBodies } from './perf-notes.js'

/** A Lua string literal: JSON's escapes of ASCII text (\", \\, \n) are Lua's too. */
export function luaString(text: string): string {
  if (/[^\x20-\x7e]/.test(text)) throw new Error('wrk scripts take printable ASCII only')
  return JSON.stringify(text)
}

/** A ~1 KiB note body whose content holds `@N@`, which each request replaces by its own number. */
export function noteBodyTemplate(): string {
  const [body] = createBodies(1) as [string]
  const note = JSON.parse(body) as { content: string }
  return JSON.stringify({ ...note, content: `${note.content} Written @N@.` })
}

/** POST /notes of `variants` different ~1 KiB notes in turn, each numbered: no two bodies alike. */
export function createsLua(variants: number): string {
  const bodies = createBodies(variants).map((b) => {
    const note = JSON.parse(b) as { content: string }
    return luaString(JSON.stringify({ ...note, content: `${note.content} Written @N@.` }))
  })
  return `local bodies = {${bodies.join(',\n')}}
local n = 0
wrk.method = "POST"
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, (bodies[n % #bodies + 1]:gsub("@N@", tostring(n), 1)))
end
`
}

/** GET each path in turn. */
export function pathsLua(paths: string[]): string {
  return `local paths = {${paths.map(luaString).join(',')}}
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, paths[n % #paths + 1])
end
`
}
