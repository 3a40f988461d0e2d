/**
 * Whether the operator gave node one of these V8 flags (in node's arguments or NODE_OPTIONS), in any of the
 * spellings V8 accepts: `--name`, `--no-name`, `--noname`, with `_` for `-`. The daemon's own V8 tuning
 * (core/compiler-hold.ts, core/young-generation.ts) leaves a flag the operator chose alone.
 */
export function operatorChose(...names: string[]): boolean {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').replaceAll('_', '-')
  return names.some((name) => new RegExp(`(?:^|\\s)--(?:no-?)?${name.replaceAll('-', '\\-')}(?:=|\\s|$)`).test(given))
}
