import { Context, type Effect, Schema } from "effect"
import type { TidyLimits, TidyTool } from "./tidy.ts"
import type { ToolOutcome } from "../../kernel/toolOutcome.ts"
import type { NotesHomes } from "../NotesHomes.ts"
import type { PiSession } from "../../kernel/PiSession.ts"
import type { Thresholds } from "../../settings/Thresholds.ts"

/** What a tidy pass's model run is given, whoever runs it. */
export interface TidyPassRequest {
  readonly instructions: string
  readonly prompt: string
  /** `provider/id` from the `tidyModel` setting; the session's current model when absent. */
  readonly modelRef: string | undefined
  /** The pass is stopped after this many model turns, or this long, whichever comes first. */
  readonly limits: TidyLimits
}

/** How a tidy pass's model run ended: the model's account of it, or why it failed. */
export type TidyPassResult =
  | { readonly _tag: "Done"; readonly account: string; readonly model: string }
  | { readonly _tag: "Failed"; readonly reason: string }

/** A tidy pass's model run, given the instructions and a way back into the notes tools. */
export type TidyPass = (
  request: TidyPassRequest & { readonly tool: (name: TidyTool, params: unknown) => Effect.Effect<ToolOutcome, never, NotesHomes | PiSession | Thresholds> }
) => Effect.Effect<TidyPassResult>

/** The model run behind `/pi-context tidy`: a separate Pi session with only the notes tools, one per command event. */
export class TidyModel extends Context.Service<TidyModel, { readonly pass: TidyPass }>()("pi-context/TidyModel") {}

/** Why a tidy cannot start or go on (another pass holds the lock, no history to undo it), as the sentence the user reads. */
export class TidyRefused extends Schema.TaggedError<TidyRefused>()("TidyRefused", { message: Schema.String }) {}
