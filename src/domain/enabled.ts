import type { BranchEntry } from "./entries.ts"

/** Whether pi-context may start new resets: the last state entry on the branch, else the setting. */
export const isEnabled = (branch: ReadonlyArray<BranchEntry>, settingDefault: boolean): boolean => {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry._tag === "State") return entry.enabled
  }
  return settingDefault
}
