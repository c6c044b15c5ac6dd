import { CustomType } from "../kernel/protocol.ts"
import type { ResetShown } from "../kernel/resetData.ts"
import type { ResetSource } from "../kernel/facts.ts"
import { requestExcerpt } from "../boot/digest.ts"
import { quotedLines } from "../kernel/names.ts"

/** The boundary drafts pi-context writes; structurally Pi's `SessionBoundaryDraft`. */
export type BoundaryDraft =
  | { readonly type: "custom"; readonly customType: string; readonly data?: unknown }
  | {
    readonly type: "custom_message"
    readonly customType: string
    readonly content: string
    readonly display: boolean
    readonly details?: unknown
  }
  | { readonly type: "context_edit"; readonly targetId: string; readonly replacement: null }
  | { readonly type: "compaction"; readonly summary: string; readonly firstKeptEntryId: string | null; readonly details?: unknown }

export const continuationText =
  "Your context window was just reset. The message above is your boot: it lists your notes and quotes this session's MAP and latest note when they fit. " +
  "Resume from them (read with notes_read what is not quoted), then continue the task from where they say you stopped. " +
  "Use the history tools if you need something said before the reset."

/** How a continuation introduces the pending request: the reset may itself have been what it asked for. */
export const pendingIntro =
  "The user's latest message had no reply when the window ended. Unless your notes show it is done " +
  "(or it only asked for this reset), take it up now:"

/**
 * How a continuation mentions a request the user cancelled: so that the model,
 * whose notes may still name it as the next step, does not take it up again.
 */
export const cancelledIntro =
  "The user cancelled their latest message before it was answered (they stopped the run). " +
  "Do not resume it, even if your notes name it as the next step, unless the user asks again. It read:"

export interface ContinuationInput {
  /** The user's request the window left unanswered and not cancelled (`unansweredRequest`), if any. */
  readonly pending: string | undefined
  /** The user's latest request when they cancelled it (`unansweredRequest`), if any: quoted as cancelled, never as pending. */
  readonly cancelled?: string | undefined
  /**
   * The window's digest, for a reset the model did not ask for: it already
   * quotes the pending request first. Undefined for the model's and the user's resets.
   */
  readonly digest: string | undefined
}

/** A cancelled request, quoted line by line so that it reads as something said, not something asked now. */
const quoted = (text: string) => quotedLines(requestExcerpt(text)).join("\n")

/**
 * The continuation. The pending request survives every reset: an automatic
 * one carries the window's digest (which quotes it first); any other quotes
 * the request itself. A request that was answered is not carried; one the
 * user cancelled is quoted only as cancelled.
 */
export const continuationFor = (input: ContinuationInput): string => {
  const cancelled = input.cancelled === undefined || input.cancelled.trim() === ""
    ? ""
    : `\n\n${cancelledIntro}\n\n${quoted(input.cancelled)}`
  if (input.digest !== undefined && input.digest.trim() !== "") {
    return `${continuationText}\n\nThis reset was automatic (the window was full, or a request overflowed it). Besides your notes, ` +
      `here is what the window held, taken from its entries:\n\n${input.digest.trim()}${cancelled}`
  }
  if (input.pending === undefined || input.pending.trim() === "") return `${continuationText}${cancelled}`
  return `${continuationText}\n\n${pendingIntro}\n\n${requestExcerpt(input.pending)}`
}

export const bootMessage = (windowId: string, bootText: string): Extract<BoundaryDraft, { type: "custom_message" }> => ({
  type: "custom_message",
  customType: CustomType.boot,
  content: bootText,
  display: false,
  details: { windowId }
})

export const continuationMessage = (text: string = continuationText): Extract<BoundaryDraft, { type: "custom_message" }> => ({
  type: "custom_message",
  customType: CustomType.continuation,
  content: text,
  display: false
})

/**
 * One reset boundary, in order: the marker, a context edit hiding each entry
 * Pi's own context still holds (`hidden`, see `stillInPiContext`), the hidden
 * boot, the continuation. The edits make Pi count the new window from its
 * boot (its footer, its compaction threshold); nothing is compacted, so Pi's
 * chat keeps the whole conversation above the divider. The model never sees
 * what came before the boot either way: a window's requests start at it.
 * The edits follow the marker: a session cut off among them is a marker
 * followed by metadata, which start-up completes (`inspectTail`); edits before
 * a marker that never came would hide the open window's own boot from Pi.
 * The marker records the reset's `source`: how the window before it ended.
 */
export const resetDrafts = (
  windowId: string,
  source: ResetSource,
  bootText: string,
  continuation: string = continuationText,
  shown?: ResetShown,
  hidden: ReadonlyArray<string> = []
): ReadonlyArray<BoundaryDraft> => [
  { type: "custom", customType: CustomType.resetMarker, data: shown === undefined ? { windowId, source } : { windowId, source, shown } },
  ...hidden.map((targetId) => ({ type: "context_edit" as const, targetId, replacement: null })),
  bootMessage(windowId, bootText),
  continuationMessage(continuation)
]
