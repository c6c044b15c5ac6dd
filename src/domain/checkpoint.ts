import type { RawEntry } from "./entries.ts"
import { messageOfRole } from "./messageOfRole.ts"
import { ToolName } from "./protocol.ts"

interface ToolResultShape {
  readonly role?: unknown
  readonly toolName?: unknown
  readonly isError?: unknown
}

const toolResultOf = (entry: RawEntry) => messageOfRole<ToolResultShape>(entry, "toolResult")

/** What the window's durable entries say about its checkpoint and its `wipe_memory` calls. */
export interface WindowActivity {
  /** A `notes_write` or `notes_update` succeeded in the window. */
  readonly checkpointed: boolean
  /** `wipe_memory` results already in the window (refused or not). */
  readonly wipeCalls: number
}

export const windowActivity = (entries: ReadonlyArray<RawEntry>): WindowActivity => {
  let checkpointed = false
  let wipeCalls = 0
  for (const entry of entries) {
    const result = toolResultOf(entry)
    if (result === undefined) continue
    if ((result.toolName === ToolName.notesWrite || result.toolName === ToolName.notesUpdate) && result.isError !== true) {
      checkpointed = true
    }
    if (result.toolName === ToolName.wipeMemory) wipeCalls++
  }
  return { checkpointed, wipeCalls }
}

export type WipeCheck =
  | { readonly _tag: "Allow"; readonly reason: string }
  | { readonly _tag: "Refuse"; readonly reason: string }

/**
 * The checkpoint check at `wipe_memory`: the window's first call is refused
 * when no note was written in it; a second call goes through whatever
 * happened, so a model that cannot write notes is never stuck.
 */
export const checkWipe = (input: { readonly checkEnabled: boolean; readonly activity: WindowActivity }): WipeCheck => {
  if (!input.checkEnabled) return { _tag: "Allow", reason: "checkpointCheck is off" }
  if (input.activity.checkpointed) return { _tag: "Allow", reason: "a note was written in this window" }
  if (input.activity.wipeCalls > 0) return { _tag: "Allow", reason: "second wipe_memory call in this window" }
  return { _tag: "Refuse", reason: "no note written in this window" }
}

export const wipeRefusalText =
  "Not reset yet: no note was written in this context window, so everything it holds would be lost from view. " +
  `Write your checkpoint first: update this session's MAP and write a note with the goal, the current state, ` +
  `the decisions made and the next step (${ToolName.notesWrite} or ${ToolName.notesUpdate}). Then call ${ToolName.wipeMemory} again. ` +
  `If there is truly nothing to keep, calling ${ToolName.wipeMemory} again resets anyway.`
