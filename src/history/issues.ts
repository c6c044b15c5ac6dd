import { Schema } from "effect"
import type { InvalidPattern } from "../kernel/patterns.ts"
import { echo } from "../kernel/toolOutcome.ts"

/**
 * Why a history query cannot be answered: one error per concern, each with
 * its stable tool code, and a `message` that is already the sentence the
 * model reads. The pure domain returns them; the History service fails with
 * them; the tools show them as they are.
 */

/** Code points of a window id shown; longer ids are cut with an ellipsis (the full id stays in the tool's details). */
export const WindowIdShownPoints = 120

/** A window id as shown in a heading or listing: ids come from session entries, so a forged one can be any length. */
export const shownWindowId = (id: string): string => echo(id, WindowIdShownPoints)

export class UnknownWindow extends Schema.TaggedError<UnknownWindow>()("UnknownWindow", {
  windowId: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  readonly code = "unknown_window" as const
  override get message(): string {
    return `no window "${shownWindowId(this.windowId)}" on the active branch. Known windows: ${this.known.slice(-20).join(", ")}. Call history_windows for the list.`
  }
}

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", {
  seq: Schema.Number,
  lastSeq: Schema.Number
}) {
  readonly code = "not_found" as const
  override get message(): string {
    return this.lastSeq === 0
      ? `no event #${this.seq}: the session has no events yet.`
      : `no event #${this.seq}: seqs run from 1 to ${this.lastSeq}. Use history_list or history_search to find one.`
  }
}

export class NotOnBranch extends Schema.TaggedError<NotOnBranch>()("NotOnBranch", {
  seq: Schema.Number
}) {
  readonly code = "not_on_branch" as const
  override get message(): string {
    return `event #${this.seq} belongs to another branch of this session, not the active one. Only events on the active branch can be read; use history_list to see them.`
  }
}

export type HistoryIssue = UnknownWindow | EventNotFound | NotOnBranch | InvalidPattern

/** The stable tool code of an issue (a pattern the engine refused is `bad_regex`). */
export const issueCode = (issue: HistoryIssue): "unknown_window" | "not_found" | "not_on_branch" | "bad_regex" =>
  issue._tag === "InvalidPattern" ? "bad_regex" : issue.code
