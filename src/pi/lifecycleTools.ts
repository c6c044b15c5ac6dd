import { Type } from "typebox"
import { ToolName } from "../kernel/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

export const lifecycleToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.wipeMemory,
    label: "Wipe memory",
    description: "End this context window and go on in a fresh one that starts from your notes. Write your checkpoint " +
      "(goal, decisions, next step) and the session MAP first.",
    promptSnippet: "end this context window and go on from your notes (write your checkpoint first)",
    parameters: Type.Object({}),
    // The checkpoint check reads the window's notes results from the session: a note written
    // earlier in the same batch must be there before this call runs.
    executionMode: "sequential"
  }
]
