import { Type } from "typebox"
import { ToolName } from "../kernel/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

export const budgetToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.contextRemaining,
    label: "Context remaining",
    description: "Tokens left in this window before the final warning and before the reset (null while unknown).",
    parameters: Type.Object({})
  }
]
