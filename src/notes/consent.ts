/**
 * The user's say over their memory: which changes to notes the model makes
 * freely, which need the user's OK, and which are refused. Pure.
 *
 * A protected home (`pi-context.protectedHomes`, default the user's own)
 * takes new notes freely, but a note already there is the user's: rewriting,
 * editing, renaming or retiring it needs their OK. A read-only home
 * (`pi-context.readOnlyHomes`) takes nothing from the model at all.
 */
import type { Home } from "../kernel/homes.ts"

export interface Protection {
  readonly protectedHomes: ReadonlyArray<Home>
  readonly readOnlyHomes: ReadonlyArray<Home>
}

/** A change the model asks for: where, to a note that exists or not, and how. */
export interface NoteChange {
  readonly home: Home
  readonly exists: boolean
  readonly kind: "write" | "edit" | "rename" | "retire"
  /** A rename's target home: judged as a new note there. */
  readonly toHome?: Home
}

export type ConsentDecision =
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Ask"; readonly home: Home }
  | { readonly _tag: "Refuse"; readonly home: Home }

const allow: ConsentDecision = { _tag: "Allow" }

/** What a change takes: nothing, the user's OK, or it is refused (a read-only home, on either side of a rename). */
export const decideChange = (protection: Protection, change: NoteChange): ConsentDecision => {
  const homes = change.toHome === undefined ? [change.home] : [change.home, change.toHome]
  const readOnly = homes.find((home) => protection.readOnlyHomes.includes(home))
  if (readOnly !== undefined) return { _tag: "Refuse", home: readOnly }
  // A new note in a protected home is the model's to add; one already there is the user's.
  if (change.exists && protection.protectedHomes.includes(change.home)) return { _tag: "Ask", home: change.home }
  return allow
}

/** How many lines of a change the confirm dialog shows around what differs. */
const DiffContext = 3
/** At most this many lines of a diff are shown; the rest are counted. */
const DiffLines = 40

/**
 * The lines that differ between two texts, with a little context, as a
 * unified-style diff (`-` removed, `+` added): the common start and end are
 * left out, so a small edit in a long note shows small.
 */
export const changeDiff = (before: string, after: string): string => {
  const a = before.split("\n")
  const b = after.split("\n")
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const from = Math.max(0, start - DiffContext)
  const lines = [
    ...a.slice(from, start).map((line) => `  ${line}`),
    ...a.slice(start, endA).map((line) => `- ${line}`),
    ...b.slice(start, endB).map((line) => `+ ${line}`),
    ...a.slice(endA, Math.min(a.length, endA + DiffContext)).map((line) => `  ${line}`)
  ]
  return lines.length <= DiffLines ? lines.join("\n") : [...lines.slice(0, DiffLines), `… ${lines.length - DiffLines} more lines`].join("\n")
}
