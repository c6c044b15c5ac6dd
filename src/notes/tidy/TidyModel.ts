import { Context, type Effect, Schema } from "effect"
import type { TidyLimits, TidyTool } from "./tidy.ts"
import type { ToolOutcome } from "../../kernel/toolOutcome.ts"
import type { NotesHomes } from "../NotesHomes.ts"
import type { PiSession } from "../../kernel/PiSession.ts"

/** A tidy pass's model run, given the instructions and a way back into the notes tools. */
export type TidyPass = (request: {
  readonly instructions: string
  readonly prompt: string
  readonly modelRef: string | undefined
  readonly limits: TidyLimits
  readonly tool: (name: TidyTool, params: unknown) => Effect.Effect<ToolOutcome, never, NotesHomes | PiSession>
}) => Effect.Effect<{ readonly _tag: "Done"; readonly account: string; readonly model: string } | { readonly _tag: "Failed"; readonly reason: string }>

/** The model run behind `/pi-context tidy`: a separate Pi session with only the notes tools, one per command event. */
export class TidyModel extends Context.Service<TidyModel, { readonly pass: TidyPass }>()("pi-context/TidyModel") {}

/** Why a tidy cannot start or go on (another pass holds the lock, no history to undo it), as the sentence the user reads. */
export class TidyRefused extends Schema.TaggedError<TidyRefused>()("TidyRefused", { message: Schema.String }) {}
