import type { BranchEntry } from "../kernel/entries.ts"
import { isResetWindowOf } from "../kernel/windowId.ts"

/**
 * What a reset window's tail holds: its marker, then its own boot. Start-up
 * and `/tree` repair judge it here, and the projection finds the boot it
 * starts the request from.
 */

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
  const own = tail.findIndex((entry) => entry._tag === "Boot")
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
