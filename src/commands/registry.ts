import type { Subcommand } from "./Subcommand.ts"
import { doctor } from "./doctor.ts"
import { off, on } from "./enable.ts"
import { notes } from "./notesHistory.ts"
import { status } from "./status.ts"
import { tidy } from "./tidy.ts"
import { trace } from "./trace.ts"

/**
 * Every `/pi-context` subcommand, in the order the menu lists them. A new
 * subcommand is a file beside this one and one line here.
 */
export const subcommands = [on, off, status, doctor, trace, notes, tidy] as const

/** What `/pi-context` alone runs. */
export const defaultSubcommand = status.name

type Needs<C> = C extends Subcommand<infer R> ? R : never

/** Any one of them, needing what all of them together need. */
export type AnySubcommand = Subcommand<Needs<(typeof subcommands)[number]>>
