import { noticeKey, type ThresholdNotice, type ValueSource, WrittenNumber } from "./notice.ts"
import { type Home, parseHome } from "../kernel/homes.ts"

/**
 * Validation of single settings values: each check says what is wrong with a
 * value (or how it was fixed), and `pick` chooses among the sources. Pure.
 */

// The defaults of the features' own settings, which the checks fall back to.

/** The agent's name when `agentName` is not set: the `@agent` home is `agents/pi`. */
export const defaultAgentName = "pi"

/** Lowercase `[a-z0-9]+(-[a-z0-9]+)*`; `fallback` when nothing is left. */
export const slugify = (text: string, fallback: string): string => {
  const slug = text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
  return slug === "" ? fallback : slug.slice(0, 80).replace(/-+$/, "")
}

/** A note untouched this many days is listed by the notes lint (setting `staleNoteDays`). */
export const DefaultStaleDays = 90

/** A tidy pass ends after this many model turns (setting `tidyTurnLimit`). */
export const DefaultTidyTurnLimit = 40
/** A tidy pass ends after this long (setting `tidyTimeLimitSeconds`). */
export const DefaultTidyTimeLimitSeconds = 600

/** A positive whole number, or undefined. */
export const positiveWhole = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined

/** The homes protected when nothing is set: the user's own preferences and rules. */
export const DefaultProtectedHomes: ReadonlyArray<Home> = ["user"]

export type TraceLevel = "off" | "info" | "debug"

/** A resolved value and where it came from. */
export interface Sourced<A> {
  readonly value: A
  readonly source: ValueSource
  /** The settings key the value was read from, absent for a default. */
  readonly key?: string
  /** The settings file that wrote it, when `source` is a model override's rank. */
  readonly file?: ValueSource
}

export interface Candidate {
  readonly key: string
  readonly value: unknown
  readonly source: ValueSource
  /** The settings file that wrote it, where `source` names its rank instead (a model override): what a notice names. */
  readonly file?: ValueSource
}

export type Check<A> = (value: unknown) => { readonly ok: A } | { readonly fix: A; readonly reason: string } | { readonly reason: string }

/** What kind of value a setting holds, as a notice names it beside the kind it expected. */
export const kindOf = (value: unknown): string =>
  value === null
    ? "empty (null)"
    : Array.isArray(value)
    ? "a list"
    : typeof value === "string"
    ? "a text"
    : typeof value === "number"
    ? "a number"
    : typeof value === "boolean"
    ? "a yes-or-no value"
    : "an object"

/** A value of the wrong kind: what it is, what was expected, and for a quoted value of the right form, how to write it. */
export const wrongKind = (value: unknown, expected: string, unquoted?: (text: string) => boolean): string => {
  const hint = typeof value === "string" && unquoted?.(value.trim()) === true ? `; write it without the quotes: ${value.trim()}` : ""
  return `is ${kindOf(value)}, not ${expected}${hint}`
}

const isNumberText = (text: string) => text !== "" && Number.isFinite(Number(text))

/** The value a check lets through: as it is, as it fixed it, or `fallback` when it refused it. */
export const checkedValue = <A>(result: ReturnType<Check<A>>, fallback: A): A =>
  "ok" in result ? result.ok : "fix" in result ? (result as { readonly fix: A }).fix : fallback

export const checkBoolean: Check<boolean> = (value) =>
  typeof value === "boolean" ? { ok: value } : { reason: wrongKind(value, "true or false", (text) => text === "true" || text === "false") }

const homeNames = "session, project, user, agent, model"

/**
 * A list of note homes (`"user"` or `"@user"`) that protects notes: a wrong value never protects less than
 * `floor`, the setting's default. A text naming homes (`"user"`, `"user, project"`) means those homes, with the
 * default's, and is told with how to write it; a list naming something that is no home keeps the homes it does
 * name, with the default's. Anything else is refused (the value below it, or the default, stands).
 */
export const checkHomeList = (floor: ReadonlyArray<Home>): Check<ReadonlyArray<Home>> => (value) => {
  const withFloor = (homes: ReadonlyArray<Home>) => [...floor, ...homes.filter((home) => !floor.includes(home))]
  if (typeof value === "string") {
    const named = value.split(/[\s,]+/).filter((word) => word !== "").map(parseHome)
    if (named.length === 0 || named.some((home) => home === undefined)) return { reason: wrongKind(value, `a list of homes (${homeNames}), such as ["user"]`) }
    const homes = [...new Set(named as ReadonlyArray<Home>)]
    return { fix: withFloor(homes), reason: `is a text, not a list of homes; write it as a list: ${JSON.stringify(homes)}` }
  }
  if (!Array.isArray(value)) return { reason: wrongKind(value, `a list of homes (${homeNames}), such as ["user"]`) }
  const homes: Array<Home> = []
  const strays: Array<string> = []
  for (const item of value) {
    const home = typeof item === "string" ? parseHome(item) : undefined
    if (home === undefined) strays.push(typeof item === "string" ? JSON.stringify(item) : kindOf(item))
    else if (!homes.includes(home)) homes.push(home)
  }
  if (strays.length === 0) return { ok: homes }
  return { fix: withFloor(homes), reason: `names ${strays.join(", ")}, which ${strays.length === 1 ? "is" : "are"} no home (${homeNames})` }
}

/** How long the user's own instruction for every new window may be: it is never cut, so it is bounded. */
export const AfterResetLimit = 1_000

/** A control character that is neither a line break (the boot quotes each line) nor a tab: it could redraw or hide text. */
const controlInText = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/

/** The user's instruction for every new window: text and line breaks of any kind (each line is quoted), no other control character. */
export const checkAfterReset: Check<string> = (value) => {
  if (typeof value !== "string") return { reason: wrongKind(value, "a text") }
  const text = value.trim()
  if (text === "") return { reason: "is empty" }
  if (Array.from(text).length > AfterResetLimit) return { reason: `is longer than ${AfterResetLimit.toLocaleString("en-US")} characters` }
  const control = controlInText.exec(text)?.[0]
  if (control !== undefined) {
    return { reason: `holds the control character U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} (only text, tabs and line breaks may be written)` }
  }
  return { ok: text }
}

export const checkTrace: Check<TraceLevel> = (value) =>
  value === "off" || value === "info" || value === "debug"
    ? { ok: value }
    : { reason: typeof value === "string" ? `is not one of "off", "info", "debug"` : wrongKind(value, `one of "off", "info", "debug"`) }

/** Token counts: non-negative safe integers; fractions are rounded down (a fix, noticed). */
export const checkTokens = (positive: boolean): Check<number> => (value) => {
  if (typeof value !== "number" || Number.isNaN(value)) return { reason: wrongKind(value, "a number of tokens", isNumberText) }
  if (value < 0) return { reason: "is negative" }
  if (value > Number.MAX_SAFE_INTEGER) return { reason: "is too large" }
  if (positive && value < 1) return { reason: "must be at least 1" }
  if (!Number.isInteger(value)) return { fix: Math.floor(value), reason: "is not a whole number of tokens" }
  return { ok: value }
}

/**
 * Picks the winning candidate (the last one, i.e. the most specific source)
 * that passes `check`. Every rejected candidate above the winner yields a notice
 * naming the value used instead.
 */
export const pick = <A>(
  candidates: ReadonlyArray<Candidate>,
  check: Check<A>,
  fallback: Sourced<A>,
  notices: Array<ThresholdNotice>
): Sourced<A> => {
  const rejected: Array<{ readonly candidate: Candidate; readonly reason: string }> = []
  let chosen: Sourced<A> = fallback
  for (let i = candidates.length - 1; i >= 0; i--) {
    const candidate = candidates[i]!
    // A number the file wrote beyond what JS holds exactly is checked as the number it parses to
    // (1e400 is Infinity: too large); the notice still names it as written.
    const result = check(candidate.value instanceof WrittenNumber ? candidate.value.value : candidate.value)
    // A fixed value is used, and its candidate still told as rejected, with the reason.
    if (!("ok" in result)) rejected.push({ candidate, reason: result.reason })
    if ("ok" in result || "fix" in result) {
      const value = "ok" in result ? result.ok : result.fix
      chosen = { value, source: candidate.source, key: candidate.key, ...(candidate.file === undefined ? {} : { file: candidate.file }) }
      break
    }
  }
  for (const { candidate, reason } of rejected) {
    notices.push({ key: candidate.key, value: candidate.value, used: chosen.value, reason, source: candidate.file ?? candidate.source })
  }
  return chosen
}

/**
 * `notesRoot`, `agentName` and the notes and tidy keys are used from Pi's merged settings, where the
 * most specific source wins whole: only that value is judged, and a bad one
 * is told with what the notes code does instead.
 */
export const checkNames = (candidates: (name: string) => ReadonlyArray<Candidate>, notices: Array<ThresholdNotice>): void => {
  const judge = (name: string, problem: (value: unknown) => string | undefined, used: unknown, outcome?: string) => {
    const candidate = candidates(name).at(-1)
    const reason = candidate === undefined ? undefined : problem(candidate.value)
    if (candidate === undefined || reason === undefined) return
    notices.push({ key: candidate.key, value: candidate.value, used, reason, source: candidate.source, ...(outcome === undefined ? {} : { outcome }) })
  }
  const wholeNumber = (value: unknown) =>
    positiveWhole(value) !== undefined
      ? undefined
      : typeof value === "number"
      ? "is not a positive whole number"
      : wrongKind(value, "a positive whole number", (text) => positiveWhole(Number(text)) !== undefined)
  judge(
    "notesRoot",
    (value) => (typeof value !== "string" ? wrongKind(value, "a folder path (a text)") : value.trim() === "" ? "is empty" : undefined),
    undefined,
    "it is ignored"
  )
  judge("agentName", (value) => (typeof value !== "string" ? wrongKind(value, "a name (a text)") : slugify(value, "") === "" ? "has no letters or digits" : undefined), defaultAgentName)
  judge(
    "projectNotes",
    (value) => (value === "in-project" ? undefined : typeof value === "string" ? `is not "in-project"` : wrongKind(value, `the text "in-project"`)),
    undefined,
    "the project home stays in the notes root"
  )
  judge("staleNoteDays", wholeNumber, DefaultStaleDays)
  judge(
    "tidyModel",
    (value) =>
      typeof value === "string" && /^[^/\s]+\/\S+$/.test(value.trim())
        ? undefined
        : typeof value === "string"
        ? "is not provider/model-id"
        : wrongKind(value, "a text provider/model-id"),
    undefined,
    "tidy uses the session's model"
  )
  judge("tidyTurnLimit", wholeNumber, DefaultTidyTurnLimit)
  judge("tidyTimeLimitSeconds", wholeNumber, DefaultTidyTimeLimitSeconds)
}

/** Each distinct problem once. */
export const dedupe = (notices: ReadonlyArray<ThresholdNotice>): ReadonlyArray<ThresholdNotice> => {
  const seen = new Set<string>()
  return notices.filter((notice) => {
    const key = noticeKey(notice)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
