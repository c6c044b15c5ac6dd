import type { Subcommand } from "../kernel/Subcommand.ts"
import { doctor } from "./doctor.ts"
import { off, on } from "./enableCommand.ts"
import { notes } from "./notesCommand.ts"
import { status } from "../budget/statusCommand.ts"
import { tidy } from "../notes/tidy/tidyCommand.ts"
import { trace } from "../trace/traceCommand.ts"
import { windows } from "./windowsCommand.ts"
import { resetReport } from "../reset/resetReport.ts"

/**
 * Every `/pi-context` subcommand, in the order the menu lists them. A new
 * subcommand is a file beside this one and one line here.
 */
export const subcommands = [on, off, status, doctor, trace, windows, resetReport, notes, tidy] as const

/** What `/pi-context` alone runs. */
export const defaultSubcommand = status.name

type Needs<C> = C extends Subcommand<infer R> ? R : never

/** What all of them together need. */
export type SubcommandNeeds = Needs<(typeof subcommands)[number]>

/** Any one of them, needing what all of them together need. */
export type AnySubcommand = Subcommand<SubcommandNeeds>
