import type { BranchEntry } from "./entries.ts"
import { CustomType } from "./protocol.ts"
import type { ResetSource } from "./resetControl.ts"
import type { ResetShown } from "./window/resetData.ts"
import { isResetWindowOf } from "./windowId.ts"

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

/** How much of the pending request a continuation quotes. */
export const CarriedRequestLimit = 1_500

/** The pending request's beginning, with the pointer to the history tools when it is cut. */
export const requestExcerpt = (request: string, limit: number = CarriedRequestLimit): string => {
  const points = Array.from(request.trim())
  return points.length > limit
    ? `${points.slice(0, limit).join("")}\n[… ${points.length - limit} more characters; find the message with history_search and read it with history_read]`
    : points.join("")
}

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
  /** The user's request the window left unanswered (`pendingRequest`), if any. */
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
const quoted = (text: string) => requestExcerpt(text).split("\n").map((line) => `> ${line}`).join("\n")

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

/** What start-up or tree repair finds after the last marker. */
export type TailInspection =
  | { readonly _tag: "NoMarker" }
  | { readonly _tag: "Complete" }
  | { readonly _tag: "Repair"; readonly windowId: string; readonly missing: ReadonlyArray<"boot" | "continuation"> }
  | { readonly _tag: "Refuse"; readonly windowId: string; readonly reason: string }

/** What repair must know of the branch before the marker, so that it never forges a boot. */
export interface RepairContext {
  readonly sessionId: string
  /** Window ids that already have a boot on the branch before the marker. */
  readonly bootedBefore: ReadonlySet<string>
}

/**
 * Inspects the branch tail that starts at the last marker. Repair is narrow:
 * only a marker followed by metadata (and possibly its boot) may be completed.
 * Anything else after an incomplete boundary is refused, so a repair can never
 * reorder or duplicate what later work already built on. With a repair
 * context, a missing boot is written only for a window this session opened
 * and that has no boot yet: a marker that reuses an id (the root's, an earlier
 * window's) or names another session's window was forged or copied.
 */
export const inspectTail = (tail: ReadonlyArray<BranchEntry>, repair?: RepairContext): TailInspection => {
  const marker = tail[0]
  if (marker === undefined || marker._tag !== "Marker") return { _tag: "NoMarker" }
  const windowId = marker.windowId
  let bootSeen = false
  for (let i = 1; i < tail.length; i++) {
    const entry = tail[i]!
    switch (entry._tag) {
      case "Metadata":
      case "State":
        continue
      case "Boot":
        if (bootSeen) return { _tag: "Refuse", windowId, reason: "a second boot follows the marker" }
        if (entry.windowId !== windowId) return { _tag: "Refuse", windowId, reason: "the boot after the marker belongs to another window" }
        bootSeen = true
        continue
      case "Continuation":
        if (!bootSeen) return { _tag: "Refuse", windowId, reason: "a continuation precedes the boot" }
        return { _tag: "Complete" }
      default:
        return {
          _tag: "Refuse",
          windowId,
          reason: bootSeen
            ? `the boundary has no continuation and later work follows it (${describe(entry)})`
            : `the marker has no boot and later work follows it (${describe(entry)})`
        }
    }
  }
  if (!bootSeen && repair !== undefined) {
    if (repair.bootedBefore.has(windowId)) {
      return { _tag: "Refuse", windowId, reason: "the marker reuses the id of a window that already has a boot earlier on this branch" }
    }
    if (!isResetWindowOf(repair.sessionId, windowId)) {
      return { _tag: "Refuse", windowId: shownId(windowId), reason: "the marker names a window this session never opened" }
    }
  }
  return { _tag: "Repair", windowId, missing: bootSeen ? ["continuation"] : ["boot", "continuation"] }
}

/**
 * `inspectTail` on the current window (the last of `windows`, as the Window
 * room reads the branch), with what repair must know of the windows before
 * it: which window ids already have a boot.
 */
export const inspectBranch = (windows: ReadonlyArray<{ readonly tail: ReadonlyArray<BranchEntry> }>, sessionId: string): TailInspection => {
  if (windows.length < 2) return { _tag: "NoMarker" }
  const bootedBefore = new Set<string>()
  for (const window of windows.slice(0, -1)) {
    for (const entry of window.tail) if (entry._tag === "Boot") bootedBefore.add(entry.windowId)
  }
  return inspectTail(windows[windows.length - 1]!.tail, { sessionId, bootedBefore })
}

/**
 * Where a reset window's own boot is, counted from the leaf: 1 when it is the
 * last boot with the window's id on the branch, 2 when one more follows, and
 * so on. Its own boot is the one right after its marker; undefined when it
 * has none, or when the tail is refused (a refused branch sends nothing of
 * its history). Another extension's context edit may hide a later boot from
 * the request, so each edit counts as a hidden boot: the count can only err
 * towards a later boot, which drops window history instead of leaking what
 * came before the marker.
 */
export const ownBootFromEnd = (tail: ReadonlyArray<BranchEntry>): number | undefined => {
  const inspection = inspectTail(tail)
  if (inspection._tag === "NoMarker" || inspection._tag === "Refuse") return undefined
  const marker = tail[0] as Extract<BranchEntry, { _tag: "Marker" }>
  let own = -1
  for (let i = 1; i < tail.length; i++) {
    if (tail[i]!._tag === "Boot") {
      own = i
      break
    }
  }
  if (own === -1) return undefined
  let boots = 0
  let edits = 0
  for (let i = own; i < tail.length; i++) {
    const entry = tail[i]!
    if (entry._tag === "Boot" && entry.windowId === marker.windowId) boots++
    else if (entry._tag === "Metadata" && entry.type === "context_edit") edits++
  }
  return Math.max(1, boots - edits)
}

/** A window id fit for a notice: a forged one may be of any length. */
const shownId = (windowId: string): string => (windowId.length > 60 ? `${JSON.stringify(windowId.slice(0, 60))}…` : JSON.stringify(windowId))

const describe = (entry: BranchEntry): string => {
  switch (entry._tag) {
    case "Message":
      return `a ${entry.role} message`
    case "Foreign":
      return `a foreign entry: ${entry.reason}`
    default:
      return `a ${entry._tag.toLowerCase()} entry`
  }
}
