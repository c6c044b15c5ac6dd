import type { WindowNoteChanges } from "../notes/windowChanges.ts"
import type { ResetSource } from "../resetControl.ts"

/**
 * The one Window type: a window of the active branch, from a reset marker
 * (or the session's start) to the next marker or the leaf. The opaque `id` is
 * for tools; people read the w-number (`ordinal`).
 */
export interface Window {
  readonly id: string
  /** w-number: 1 for the root window, then +1 per marker on the branch. */
  readonly ordinal: number
  readonly isRoot: boolean
  /** Epoch ms of the window's marker, or of the branch's first entry for the root; undefined on an empty branch. */
  readonly startedAt: number | undefined
}

/** How a window ended: still open, or by which reset. */
export type WindowEnd =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Reset"; readonly source: ResetSource | "unknown"; readonly at: number | undefined }

/** What the windows view and `history_windows` show of a window, all derived from the branch's entries. */
export interface WindowFacts extends Window {
  readonly end: WindowEnd
  /** Epoch ms of the window's last entry (or of the next marker when it ended). */
  readonly lastActivityAt: number | undefined
  /** Assistant replies in the window. */
  readonly turns: number
  /** Highest context usage a reply in the window reported (tokens), or null when none did. */
  readonly peakTokens: number | null
  /** Note addresses that a successful notes_write or notes_update wrote in the window, in order, without repeats. */
  readonly notesWritten: ReadonlyArray<string>
  /** Estimated tokens of the boot the window started from, or null when it has none. */
  readonly bootTokens: number | null
  /**
   * The window's note changes as its notes-history commits hold them (none
   * committed yet: zero counts); absent when there is no history to read
   * (off, no git, no repository yet).
   */
  readonly noteChanges?: WindowNoteChanges | undefined
  /** For a window that began at a reset: whether it picked up from its notes, and the files it read again (`sessionSignals`). */
  readonly pickup?: { readonly readNotes: boolean; readonly filesReread: number } | undefined
}
