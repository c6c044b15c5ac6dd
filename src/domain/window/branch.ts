import type { BranchEntry } from "../entries.ts"

/** Whether the branch holds a reset marker: some window on it began with a reset. */
export const hasMarker = (branch: ReadonlyArray<BranchEntry>): boolean => branch.some((entry) => entry._tag === "Marker")
