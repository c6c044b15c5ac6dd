import { Schema } from "effect"

/**
 * Why a history query cannot be answered: one error per concern, each with
 * its stable tool code, and a `message` that is already the sentence the
 * model reads. The pure domain returns them; the History service fails with
 * them; the tools show them as they are.
 */

export class UnknownWindow extends Schema.TaggedError<UnknownWindow>()("UnknownWindow", {
  windowId: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  readonly code = "unknown_window" as const
  override get message(): string {
    return `no window ${JSON.stringify(this.windowId)} on the active branch. Known windows: ${this.known.slice(-20).join(", ")}. Call history_windows for the list.`
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

export class BadRegex extends Schema.TaggedError<BadRegex>()("BadRegex", {
  pattern: Schema.String,
  reason: Schema.String
}) {
  readonly code = "bad_regex" as const
  override get message(): string {
    return `the pattern ${JSON.stringify(this.pattern)} is not a valid JavaScript regular expression (${this.reason}). Fix it, or search literally without "regex": true.`
  }
}

export type HistoryIssue = UnknownWindow | EventNotFound | NotOnBranch | BadRegex
