import { doctor } from "./doctor.ts"
import { off, on } from "./enable.ts"
import { status } from "./status.ts"
import { trace } from "./trace.ts"

/**
 * Every `/pi-context` subcommand, in the order the menu lists them. A new
 * subcommand is a file beside this one and one line here.
 */
export const subcommands = [on, off, status, doctor, trace] as const

/** What `/pi-context` alone runs. */
export const defaultSubcommand = status.name

export type AnySubcommand = (typeof subcommands)[number]
