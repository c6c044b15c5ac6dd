import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"

/** Scripted model steps shared by the SDK tests. */
export const say = (text: string) => fauxAssistantMessage(text)

export const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })

/** `wipe_memory` alone: refused by the checkpoint check unless a note was written in the window. */
export const bareWipe = () => call("wipe_memory", {})

/**
 * The model's checkpoint and reset in one batch, as the protocol asks: a note,
 * then `wipe_memory` (which runs after the note is on the session).
 */
export const checkpointAndWipe = (content = "# Checkpoint\ngoal: the task; next: go on") =>
  fauxAssistantMessage([fauxToolCall("notes_write", { address: "checkpoint", content }), fauxToolCall("wipe_memory", {})], {
    stopReason: "toolUse"
  })
