/**
 * The shapes every room shares about a window: who reset it, how its notes
 * changed, how full it is, and the facts the views and history show of it.
 */

/**
 * Who asked for the reset. `tool`: the model (`wipe_memory`); `command`: the
 * user (`/wipe-memory`). The hard line, an ignored close-out and an overflow
 * are automatic: the model did not ask, so the window's digest is carried.
 */
export type ResetSource = "tool" | "command" | "hard-line" | "close-out" | "overflow"

const resetSources: ReadonlySet<string> = new Set<ResetSource>(["tool", "command", "hard-line", "close-out", "overflow"])

/** A marker's recorded source; markers written before the source was recorded, or by a newer version, say `unknown`. */
export const resetSourceOf = (recorded: string | undefined): ResetSource | "unknown" =>
  recorded !== undefined && resetSources.has(recorded) ? recorded as ResetSource : "unknown"

export const isAutomaticSource = (source: ResetSource): boolean => source === "hard-line" || source === "close-out" || source === "overflow"

/** How a note changed in a commit. */
export type ChangeKind = "added" | "modified" | "deleted"

/** One note a window changed, as the view names it. */
export interface WindowNoteChange {
  /** The note's address (or its repository path when it is no note of a home). */
  readonly address: string
  readonly kind: ChangeKind
}

/** What the history holds of one window: its net change per note, and the commits it came from. */
export interface WindowNoteChanges {
  readonly added: number
  readonly modified: number
  readonly deleted: number
  /** Oldest change first, one per note. */
  readonly notes: ReadonlyArray<WindowNoteChange>
  /** Short hashes of the window's commits, oldest first. */
  readonly commits: ReadonlyArray<string>
  /** A commit of the window is still queued or running: what it holds is not counted yet. */
  readonly pending?: boolean
  /** The window's commit waited: the repository was not on a branch (`in the middle of a merge`). */
  readonly waiting?: string
}

/**
 * The one usage shape: the current window's size for the next request, as the
 * status line, `context_remaining`, `/pi-context status` and the budget read
 * it. `tokens` is null while it is unknown (no model selected, a figure Pi
 * cannot give); `estimated` while no reply in the window reported its usage
 * yet, so the figure is Pi's chars/4 estimate of the next request.
 */
export interface WindowUsage {
  readonly tokens: number | null
  readonly contextWindow: number
  readonly estimated?: boolean
}

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
