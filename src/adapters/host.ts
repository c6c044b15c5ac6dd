import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { Effect } from "effect"
import * as PiSessionLive from "../layers/PiSessionLive.ts"
import { type Host, type HostOptions, makeHost } from "../runtime.ts"
import { notesToolSpecs } from "./notesTools.ts"

/** The host over Pi's extension contexts. */
export type PiHost = Host<ExtensionContext>

/** The host runtime, with Pi's side of it: the PiSession port over each event's `ctx`, and tidy's own Pi session. */
export const makePiHost = (pi: ExtensionAPI, options: HostOptions = {}): PiHost => {
  const reportedFaults = new Set<PiSessionLive.PiOperation>()

  /** A Pi call that threw on foreign data: traced each time, told once per operation. */
  const faultReporter = (ctx: ExtensionContext, trace: (event: string, fields: Readonly<Record<string, unknown>>) => void): PiSessionLive.PiFault =>
  ({ operation, error }) => {
    const reason = (error instanceof Error ? error.message : String(error)).split("\n", 1)[0]!.slice(0, 160)
    trace("pi.fault", { operation, reason })
    if (reportedFaults.has(operation)) return
    reportedFaults.add(operation)
    Effect.runSync(PiSessionLive.make(pi, ctx).notify(
      `pi-context: Pi's ${operation} could not be read (${reason}); a session entry that another extension wrote ` +
        `may have a shape Pi does not expect. Until it can be read, ${PiSessionLive.faultFallback[operation]}.`,
      "warning"
    ))
  }

  return makeHost<ExtensionContext>({
    session: (ctx, trace) => PiSessionLive.make(pi, ctx, faultReporter(ctx, trace)),
    tidySession: async (ctx, request) => {
      const { runTidySession } = await import("./tidySession.ts")
      return runTidySession(ctx, {
        ...request,
        tools: request.tools.map(({ name, call }) => ({ spec: notesToolSpecs.find((spec) => spec.name === name)!, call }))
      })
    }
  }, options)
}
