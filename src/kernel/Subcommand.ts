import type { Effect } from "effect"
import type { ReportData } from "./report.ts"

/**
 * What a subcommand hands the adapter to show, or to ask the user with Pi's
 * UI. `N` is a later step, run once the user has answered: an Effect here, a
 * promise-returning call once the host has wrapped it for the adapter.
 */
export type Reply<N> =
  | { readonly _tag: "Quiet" }
  | { readonly _tag: "Notice"; readonly text: string; readonly level: "info" | "warning" }
  /** A report that stays in the chat (a custom entry in Pi's TUI, a notice elsewhere), then maybe a follow-up. */
  | { readonly _tag: "Report"; readonly report: ReportData; readonly then?: Reply<N> }
  /** A choice in Pi's TUI; outside it nothing is asked (the report before it said everything). */
  | { readonly _tag: "Pick"; readonly title: string; readonly choices: ReadonlyArray<{ readonly label: string; readonly next: N }> }
  /** A text for the user to edit in Pi's editor; `save` gets the edited text, or undefined when the editor was closed. */
  | { readonly _tag: "Edit"; readonly title: string; readonly text: string; readonly save: (edited: string | undefined) => N }

/** A subcommand's run, or a later step of it: an Effect that ends in a reply. */
export interface Step<R> extends Effect.Effect<Reply<Step<R>>, never, R> {}

/** One `/pi-context` subcommand: its name, and what it does with the words typed after it. */
export interface Subcommand<R> {
  readonly name: string
  readonly run: (args: ReadonlyArray<string>) => Step<R>
}

/** Declares a subcommand, keeping its own requirements in its type. */
export const subcommand = <R>(command: Subcommand<R>): Subcommand<R> => command

export const quiet: Reply<never> = { _tag: "Quiet" }

/** A notice (Pi keeps one info status: the next info notice replaces it). */
export const notice = (text: string, level: "info" | "warning" = "info"): Reply<never> => ({ _tag: "Notice", text, level })

export const report = <N = never>(data: ReportData, then?: Reply<N>): Reply<N> =>
  then === undefined ? { _tag: "Report", report: data } : { _tag: "Report", report: data, then }

/** The same reply with each later step turned into `M` (the host wraps Effects into calls the adapter makes). */
export const mapReply = <N, M>(reply: Reply<N>, f: (next: N) => M): Reply<M> => {
  switch (reply._tag) {
    case "Quiet":
    case "Notice":
      return reply
    case "Report":
      return reply.then === undefined ? { _tag: "Report", report: reply.report } : { _tag: "Report", report: reply.report, then: mapReply(reply.then, f) }
    case "Pick":
      return { _tag: "Pick", title: reply.title, choices: reply.choices.map((choice) => ({ label: choice.label, next: f(choice.next) })) }
    case "Edit":
      return { _tag: "Edit", title: reply.title, text: reply.text, save: (edited) => f(reply.save(edited)) }
  }
}
