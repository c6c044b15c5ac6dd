import { SettingsKey } from "../kernel/protocol.ts"
import { isSettingsObject, WrittenNumber } from "./notice.ts"
import type { SettingsSource } from "./policy.ts"

/**
 * Where each of Pi's effective settings came from. Pi's effective settings
 * (its files merged, with what an SDK host gave Pi on top) hold the values;
 * a value the project's or the global file holds at the same key is named
 * after that file, any other was set through Pi. A key only a file holds (an
 * SDK host whose in-memory settings do not read the files) applies from it. Pure.
 */

type Obj = Readonly<Record<string, unknown>>

/** The keys pi-context reads: its own, and Pi's compaction for the reserve. */
const readKeys = [SettingsKey, "compaction"] as const

const plain = (value: unknown): unknown => (value instanceof WrittenNumber ? value.value : value)

const own = (node: unknown, key: string): unknown => (isSettingsObject(node) && Object.hasOwn(node, key) ? node[key] : undefined)

const at = (settings: unknown, path: ReadonlyArray<string>): unknown => path.reduce<unknown>(own, settings)

/** Two settings values are the same JSON data; a number the file wrote beyond JS's range equals what it parses to. */
const sameValue = (a: unknown, b: unknown): boolean => {
  const x = plain(a)
  const y = plain(b)
  if (x === y) return true
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((item, i) => sameValue(item, y[i]))
  if (isSettingsObject(x) && isSettingsObject(y)) {
    const keys = Object.keys(x).filter((key) => x[key] !== undefined)
    return keys.length === Object.keys(y).filter((key) => y[key] !== undefined).length && keys.every((key) => sameValue(x[key], own(y, key)))
  }
  return false
}

/** Sets `value` at `path`, as own properties only (a key named `__proto__` stays a key). */
const place = (root: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown): void => {
  let node = root
  for (const key of path.slice(0, -1)) {
    const next = own(node, key)
    if (isSettingsObject(next)) node = next as Record<string, unknown>
    else {
      const created: Record<string, unknown> = {}
      Object.defineProperty(node, key, { value: created, enumerable: true, writable: true, configurable: true })
      node = created
    }
  }
  Object.defineProperty(node, path.at(-1)!, { value, enumerable: true, writable: true, configurable: true })
}

/** Whether Pi's effective settings say nothing at `path`: no value there, and no plain value above it. */
const unsetIn = (effective: unknown, path: ReadonlyArray<string>): boolean => {
  let node = effective
  for (const key of path) {
    if (node === undefined) return true
    if (!isSettingsObject(node)) return false
    node = own(node, key)
  }
  return node === undefined
}

/**
 * The settings sources pi-context resolves, from Pi's effective settings:
 * each value once, under the most specific file that holds it (as the file
 * wrote it), else under `pi`; then what only the files hold, under each file.
 */
export const attributeSettings = (effective: Obj, files: ReadonlyArray<SettingsSource>): ReadonlyArray<SettingsSource> => {
  const parts = new Map<SettingsSource["source"], Record<string, unknown>>()
  const newestFirst = [...files].reverse()
  const put = (source: SettingsSource["source"], path: ReadonlyArray<string>, value: unknown): void => {
    const part = parts.get(source) ?? {}
    parts.set(source, part)
    place(part, path, value)
  }
  /** Calls `leaf` on every value under `value` that is not a non-empty object, with its path. */
  const walk = (value: unknown, path: ReadonlyArray<string>, leaf: (value: unknown, path: ReadonlyArray<string>) => void): void => {
    if (value === undefined) return
    if (isSettingsObject(value) && Object.keys(value).length > 0) {
      for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key], leaf)
    } else leaf(value, path)
  }
  for (const key of readKeys) {
    walk(own(effective, key), [key], (value, path) => {
      const holder = newestFirst.find((file) => sameValue(at(file.settings, path), value))
      put(holder?.source ?? "pi", path, holder === undefined ? value : at(holder.settings, path))
    })
  }
  for (const file of files) {
    for (const key of readKeys) walk(own(file.settings, key), [key], (value, path) => unsetIn(effective, path) ? put(file.source, path, value) : undefined)
  }
  return (["global", "project", "pi"] as const).flatMap((source) => {
    const settings = parts.get(source)
    return settings === undefined ? [] : [{ source, settings }]
  })
}
