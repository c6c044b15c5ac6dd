import { Type } from "typebox"
import { ToolName } from "../domain/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

export const lifecycleToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.wipeMemory,
    label: "Wipe memory",
    description: "End this context window. When the current tool batch finishes, the conversation so far leaves your context and " +
      "a fresh window starts from a boot that indexes your notes. Write everything you need (session MAP, a checkpoint note " +
      "with goal, decisions, next step) with notes_write / notes_update BEFORE calling this. Takes no parameters.",
    promptSnippet: "wipe_memory: end this context window and continue in a fresh one that starts from your notes",
    promptGuidelines: [
      "Before calling wipe_memory, write your checkpoint into notes: the session MAP.md and a note with goal, decisions, open problems and the next step.",
      "Call wipe_memory when pi-context warns that the window is nearly full, or when a task phase is done and the history is no longer needed."
    ],
    parameters: Type.Object({}),
    // The checkpoint check reads the window's notes results from the session: a note written
    // earlier in the same batch must be there before this call runs.
    executionMode: "sequential"
  }
]
