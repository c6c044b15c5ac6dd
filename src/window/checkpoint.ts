import type { RawEntry } from "../kernel/entries.ts"
import { messageOfRole } from "../kernel/messageOfRole.ts"
import { CustomType, ToolName } from "../kernel/protocol.ts"

interface ToolResultShape {
  readonly role?: unknown
  readonly toolName?: unknown
  readonly isError?: unknown
  readonly details?: unknown
}

const toolResultOf = (entry: RawEntry) => messageOfRole<ToolResultShape>(entry, "toolResult")

/**
 * A successful `notes_write` or `notes_update` result: the evidence of a
 * checkpoint, with the address its details name (when they name one).
 */
export const noteWriteResult = (entry: RawEntry): { readonly address: string | undefined } | undefined => {
  const result = toolResultOf(entry)
  if (result === undefined || result.isError === true) return undefined
  if (result.toolName !== ToolName.notesWrite && result.toolName !== ToolName.notesUpdate) return undefined
  const details = result.details
  const address = typeof details === "object" && details !== null ? (details as { address?: unknown }).address : undefined
  return { address: typeof address === "string" ? address : undefined }
}

/** What the window's durable entries say about its checkpoint and its `wipe_memory` calls. */
export interface WindowActivity {
  /** A `notes_write` or `notes_update` succeeded in the window: enough for the checkpoint check at `wipe_memory`. */
  readonly checkpointed: boolean
  /**
   * One of them wrote this session's home (an address without `@`, or one a
   * result does not name): a checkpoint, as the boot and the reset's divider
   * tell it. A note written only in @user or @project is no checkpoint.
   */
  readonly sessionCheckpoint: boolean
  /** `wipe_memory` results already in the window (refused or not). */
  readonly wipeCalls: number
  /** The window carried pi-context's guidance, and its final warning: what the model was told before it ended. */
  readonly guided: boolean
  readonly warned: boolean
}

export const windowActivity = (entries: ReadonlyArray<RawEntry>): WindowActivity => {
  let checkpointed = false
  let sessionCheckpoint = false
  let wipeCalls = 0
  let guided = false
  let warned = false
  for (const entry of entries) {
    if (entry.type === "custom_message" && entry.customType === CustomType.guidance) guided = true
    if (entry.type === "custom_message" && entry.customType === CustomType.warning) warned = true
    const written = noteWriteResult(entry)
    if (written !== undefined) {
      checkpointed = true
      if (written.address === undefined || !written.address.startsWith("@")) sessionCheckpoint = true
    } else if (toolResultOf(entry)?.toolName === ToolName.wipeMemory) wipeCalls++
  }
  return { checkpointed, sessionCheckpoint, wipeCalls, guided, warned }
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
