import { SettingsKey } from "../kernel/protocol.ts"
import type { ThresholdNotice, ValueSource } from "./notice.ts"

/** Every key pi-context reads under `"pi-context"`; anything else is a mistake worth a notice. */
export const settingsKeys: ReadonlyArray<string> = [
  "enabled",
  "automaticReset",
  "guidanceLine",
  "warningLine",
  "hardLine",
  "bootBudgetTokens",
  "traceLevel",
  "notesRoot",
  "agentName",
  "checkpointCheck",
  "digestTokens",
  "projectNotes",
  "staleNoteDays",
  "tidyModel",
  "tidyTurnLimit",
  "tidyTimeLimitSeconds",
  "protectedHomes",
  "readOnlyHomes",
  "afterReset",
  "models",
  "sync"
]

/** The keys a `models` override may set. */
export const modelKeys: ReadonlyArray<string> = ["automaticReset", "bootBudgetTokens", "guidanceLine", "warningLine", "hardLine"]

const knownTop = new Set(settingsKeys)
const knownPerModel = new Set(modelKeys)

/** Optimal string alignment distance: edits, with a swap of two neighbours counted once (`enabeld`). */
export const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/** `warnline` in `warningline`: the same first letter, every letter in order, at least half of the key. */
const abbreviates = (name: string, key: string): boolean => {
  if (name.length < 3 || name.length * 2 < key.length || name[0] !== key[0]) return false
  let at = 0
  for (const char of key) if (char === name[at]) at++
  return at === name.length
}

/**
 * The known key `name` was most likely meant to be, compared case-insensitively:
 * close enough when at most a third of the longer name differs (at least two
 * edits), or when it abbreviates the key (counted as one edit, so `warnLine`
 * means `warningLine`, not `hardLine`).
 */
export const closestKey = (name: string, known: ReadonlyArray<string>): string | undefined => {
  // Names far longer than any key are not typos; comparing them would only cost time.
  if (name.length > 64) return undefined
  const lower = name.toLowerCase()
  let best: { readonly key: string; readonly distance: number } | undefined
  for (const key of known) {
    const target = key.toLowerCase()
    const distance = abbreviates(lower, target) ? Math.min(1, editDistance(lower, target)) : editDistance(lower, target)
    const allowed = Math.max(2, Math.floor(Math.max(name.length, key.length) / 3))
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { key, distance }
  }
  return best?.key
}

const unknownKey = (key: string, name: string, value: unknown, source: ValueSource, known: ReadonlyArray<string>): ThresholdNotice => {
  const suggestion = closestKey(name, known)
  return {
    key,
    value,
    used: undefined,
    reason: `is not a ${SettingsKey} setting${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}`,
    outcome: "it is ignored",
    source
  }
}

/** Keys of the `pi-context` section pi-context does not read, each with a suggestion when one is close. */
export const unknownTopKeys = (section: Readonly<Record<string, unknown>>, source: ValueSource): ReadonlyArray<ThresholdNotice> =>
  Object.entries(section).flatMap(([name, value]) =>
    knownTop.has(name) || value === undefined ? [] : [unknownKey(`${SettingsKey}.${name}`, name, value, source, settingsKeys)]
  )

/**
 * Keys of one `models` override that do nothing: settings that only exist at
 * the top level, and names that are no setting at all. Checked for every
 * pattern, not only those matching the current model, so a typo never waits
 * for its model to be noticed.
 */
export const badModelKeys = (
  pattern: string,
  entry: Readonly<Record<string, unknown>>,
  source: ValueSource
): ReadonlyArray<ThresholdNotice> =>
  Object.entries(entry).flatMap(([name, value]): ReadonlyArray<ThresholdNotice> => {
    if (knownPerModel.has(name) || value === undefined) return []
    const key = `${SettingsKey}.models["${pattern}"].${name}`
    return knownTop.has(name)
      ? [{ key, value, used: "ignored", reason: "cannot be set per model", outcome: "it is ignored", source }]
      : [unknownKey(key, name, value, source, modelKeys)]
  })

/** Whether a `models` override may set `name`. */
export const isModelKey = (name: string): boolean => knownPerModel.has(name)
