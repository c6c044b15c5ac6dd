import { Type } from "typebox"
import { ToolName } from "../domain/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

export const budgetToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.contextRemaining,
    label: "Context remaining",
    description: "Tokens left in the current context window before the final warning line and before the hard line " +
      "(where pi-context resets the window). Numbers are null when Pi cannot estimate usage yet.",
    promptSnippet: "context_remaining: tokens left in this window before the final warning and before the reset",
    promptGuidelines: [
      "Use context_remaining to plan how much work fits before you must write your notes and call wipe_memory."
    ],
    parameters: Type.Object({})
  }
]
