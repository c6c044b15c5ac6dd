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
import { shownText } from "../kernel/names.ts"
import type { ShownLine } from "../kernel/PiSession.ts"

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

/** How many lines of a change the dialog shows around what differs. */
const DiffContext = 3
/** At most this many lines of a diff are shown; the rest are counted. */
export const DiffLineLimit = 40
/** A shown line holds at most this many characters, escapes included; the rest are counted. */
export const DiffLineChars = 160

/**
 * A line of a note as the dialog shows it: every control, bidi and other
 * invisible character as a visible escape (`\r`, `\u{1B}`, `\u{202E}`), so
 * the model's text cannot move the cursor, recolour or reorder the dialog,
 * and at most `DiffLineChars` characters, saying how many it left out.
 */
export const shownDiffLine = (line: string): string => {
  let shown = ""
  let used = 0
  for (const char of line) {
    const piece = shownText(char)
    if (shown.length + piece.length > DiffLineChars) {
      let left = 0
      for (const _ of line.slice(used)) left++
      return `${shown}… (${left} more characters)`
    }
    shown += piece
    used += char.length
  }
  return shown
}

/** A muted line of the dialog, escaped and bounded as a note's line is. */
export const mutedLine = (text: string): ShownLine => ({ tone: "muted", text: shownDiffLine(text) })

/**
 * The lines that differ between two texts, with a little context, as a
 * unified-style diff: the common start and end are left out, so a small
 * edit in a long note shows small; at most `DiffLineLimit` lines, and a last
 * one counting what was left out.
 */
export const changeDiff = (before: string, after: string): ReadonlyArray<ShownLine> => {
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
  const raw: ReadonlyArray<{ readonly tone: ShownLine["tone"]; readonly text: string }> = [
    ...a.slice(from, start).map((text) => ({ tone: "context" as const, text })),
    ...a.slice(start, endA).map((text) => ({ tone: "removed" as const, text })),
    ...b.slice(start, endB).map((text) => ({ tone: "added" as const, text })),
    ...a.slice(endA, Math.min(a.length, endA + DiffContext)).map((text) => ({ tone: "context" as const, text }))
  ]
  const shown = raw.slice(0, DiffLineLimit).map((line) => ({ tone: line.tone, text: shownDiffLine(line.text) }))
  if (raw.length <= DiffLineLimit) return shown
  const rest = raw.slice(DiffLineLimit)
  const count = (tone: ShownLine["tone"]) => rest.filter((line) => line.tone === tone).length
  return [...shown, { tone: "muted", text: `… ${rest.length} more lines not shown (${count("removed")} removed, ${count("added")} added)` }]
}

/** The lines as plain text, `-` removed and `+` added, as a terminal without colours would read them. */
export const plainLines = (lines: ReadonlyArray<ShownLine>): string =>
  lines.map((line) => (line.tone === "removed" ? `- ${line.text}` : line.tone === "added" ? `+ ${line.text}` : line.tone === "context" ? `  ${line.text}` : line.text))
    .join("\n")
