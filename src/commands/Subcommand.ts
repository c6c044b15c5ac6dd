import type { Effect } from "effect"

/** One `/pi-context` subcommand: its name, and what it does with the words typed after it. */
export interface Subcommand<R> {
  readonly name: string
  /** The report shown to the user, or undefined when the command has nothing to show. */
  readonly run: (args: ReadonlyArray<string>) => Effect.Effect<string | undefined, never, R>
}

/** Declares a subcommand, keeping its own requirements in its type. */
export const subcommand = <R>(command: Subcommand<R>): Subcommand<R> => command
