import type { TSchema } from "typebox"

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
  readonly promptGuidelines?: ReadonlyArray<string>
  readonly parameters: TSchema
  /**
   * `sequential`: a batch holding this tool runs one call at a time, each
   * result on the session before the next call starts.
   */
  readonly executionMode?: "sequential"
}
