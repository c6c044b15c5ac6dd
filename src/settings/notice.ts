/**
 * The vocabulary of settings problems: one notice per distinct problem, and
 * the sentence a person reads for it. Pure.
 */
import { formatTokens } from "../kernel/tokenCount.ts"

export type ValueSource = "default" | "global" | "project" | "model" | "pi" | "injected"

/** One distinct settings problem: which key, the value found, the value used instead. */
export interface ThresholdNotice {
  readonly key: string
  readonly value: unknown
  readonly used: unknown
  readonly reason: string
  /** The settings layer that held the bad value, when there is one. */
  readonly source?: ValueSource
  /** What happens instead, when no single value replaces it ("it is ignored"); shown instead of "using …". */
  readonly outcome?: string
}

/**
 * A number as the settings file wrote it, kept when a JS number cannot hold it
 * exactly: `1e400` parses to Infinity, and a notice must name what was written.
 */
export class WrittenNumber {
  readonly text: string
  readonly value: number
  constructor(text: string, value: number) {
    this.text = text
    this.value = value
  }
}

/** A JSON.parse reviver that keeps the written text of numbers beyond the safe integers. */
export const keepWrittenNumbers = (_key: string, value: unknown, context?: { readonly source?: string }): unknown =>
  typeof value === "number" && (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) &&
    typeof context?.source === "string"
    ? new WrittenNumber(context.source, value)
    : value

/** A plain settings object (not an array, not a written number). */
export const isSettingsObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof WrittenNumber)

/**
 * A short rendering of a settings value for a notice (settings are JSON, injected ones may not be). A value
 * in use reads as the views read it: an empty list is "none", nothing at all is "nothing"; a value as
 * written is shown as written.
 */
export const showValue = (value: unknown, inUse = false): string => {
  if (value === undefined) return "nothing"
  if (value instanceof WrittenNumber) return value.text
  if (typeof value === "number" && !Number.isFinite(value)) return String(value)
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value === null) {
    return JSON.stringify(value) ?? String(value)
  }
  // A short list is shown as written (the homes a setting names); an empty one, in use, is "none".
  if (Array.isArray(value)) return value.length === 0 ? (inUse ? "none" : "[]") : JSON.stringify(value).length <= 80 ? JSON.stringify(value) : "a list"
  if (typeof value === "object") {
    const written = JSON.stringify(value)
    return written !== undefined && written.length <= 80 ? written : "an object"
  }
  return String(value)
}

/** Identity of a notice, so each distinct problem is reported once. */
export const noticeKey = (notice: ThresholdNotice): string =>
  `${notice.source ?? ""}|${notice.key}|${showValue(notice.value)}|${notice.outcome ?? showValue(notice.used)}`

const sourceLabel: Partial<Record<ValueSource, string>> = {
  global: "global settings: ",
  project: "project settings: ",
  pi: "set through Pi: ",
  injected: "injected policy: "
}

/** One line for the user, without a `pi-context:` prefix (the caller adds its own). */
export const renderNotice = (notice: ThresholdNotice): string => {
  const label = notice.source === undefined ? "" : sourceLabel[notice.source] ?? ""
  // No value for a problem with a whole file; and a parsed Infinity has lost
  // what was written: name the key, not a value nobody typed.
  const unnamed = notice.value === undefined || (typeof notice.value === "number" && !Number.isFinite(notice.value))
  const shown = unnamed ? "" : ` = ${showValue(notice.value)}`
  // What is used instead is worked out, never typed: a token count reads as the views show one.
  const used = typeof notice.used === "number" && Number.isSafeInteger(notice.used) && notice.used >= 0 ? formatTokens(notice.used) : showValue(notice.used, true)
  // Nothing used instead (a setting without a default, such as afterReset): the value is left out, not "used".
  const instead = notice.outcome ?? (notice.used === undefined ? "it is ignored" : `using ${used}`)
  return `${label}${notice.key}${shown} ${notice.reason}; ${instead}.`
}
