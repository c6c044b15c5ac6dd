import type { BranchEntry } from "./entries.ts"
import { rootWindowId } from "./windowId.ts"

/** The window the next provider request belongs to. */
export interface ActiveWindow {
  readonly id: string
  /** 1 for the root window, then +1 per marker on the branch. */
  readonly ordinal: number
  /** Index of the window's marker on the branch, or -1 for the root window. */
  readonly markerIndex: number
  readonly previousId: string | undefined
  readonly rootId: string
}

/**
 * The active window: the last reset marker on the branch, else the root.
 * Walks the branch once from the end; ordinals need the marker count, which
 * is counted in the same pass.
 */
export const activeWindow = (branch: ReadonlyArray<BranchEntry>, sessionId: string): ActiveWindow => {
  const rootId = rootWindowId(sessionId)
  let markerIndex = -1
  let previousId: string | undefined
  let markers = 0
  let id = rootId
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry._tag !== "Marker") continue
    markers++
    if (markerIndex === -1) {
      markerIndex = i
      id = entry.windowId
    } else if (previousId === undefined) {
      previousId = entry.windowId
    }
  }
  if (markerIndex !== -1 && previousId === undefined) previousId = rootId
  return { id, ordinal: markers + 1, markerIndex, previousId, rootId }
}

export const hasMarker = (branch: ReadonlyArray<BranchEntry>): boolean => branch.some((entry) => entry._tag === "Marker")

/** Whether pi-context may start new resets: the last state entry on the branch, else the setting. */
export const isEnabled = (branch: ReadonlyArray<BranchEntry>, settingDefault: boolean): boolean => {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry._tag === "State") return entry.enabled
  }
  return settingDefault
}

/**
 * Each window of the branch, oldest first: its w-number and where it started
 * (epoch ms), the root at the branch's first entry and every other window at
 * its marker. Maps a note's mtime to the window it was written in.
 */
export const windowStarts = (branch: ReadonlyArray<BranchEntry>): ReadonlyArray<{ readonly ordinal: number; readonly startedAt: number }> => {
  const starts: Array<{ readonly ordinal: number; readonly startedAt: number }> = []
  const first = branch[0]
  if (first === undefined) return starts
  starts.push({ ordinal: 1, startedAt: Date.parse(first.timestamp) || 0 })
  for (const entry of branch) {
    if (entry._tag === "Marker") starts.push({ ordinal: starts.length + 1, startedAt: Date.parse(entry.timestamp) || 0 })
  }
  return starts
}
