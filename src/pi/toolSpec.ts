import type { TSchema } from "typebox"
import { type ToolOutcome, truncateUtf8 } from "../kernel/toolOutcome.ts"

/**
 * The Pi-facing half of a tool: its name, words and typebox parameters.
 * Its behaviour lives in its room's `*Handlers.ts` as an Effect handler of the same name,
 * so registering a tool costs nothing until the model first calls it.
 */
export interface ToolSpec {
  readonly name: string
  readonly label: string
  readonly description: string
  /** One line for the system prompt's tool list. */
  readonly promptSnippet?: string
  readonly parameters: TSchema
  /**
   * `sequential`: a batch holding this tool runs one call at a time, each
   * result on the session before the next call starts.
   */
  readonly executionMode?: "sequential"
}

/** A handler's outcome as Pi's tool result: its text cut to the tool bound, an error under its code. */
export const toolResult = (outcome: ToolOutcome) => {
  const { text } = truncateUtf8(outcome.text)
  return outcome._tag === "Ok"
    ? { content: [{ type: "text" as const, text }], details: outcome.details ?? {}, ...(outcome.terminate ? { terminate: true } : {}) }
    : { content: [{ type: "text" as const, text }], details: { code: outcome.code }, isError: true }
}
