import type { AgentMessage } from "@earendil-works/pi-agent-core"
import type { ExtensionAPI, ExtensionContext, TurnEndEvent } from "@earendil-works/pi-coding-agent"
import { Effect } from "effect"
import * as PiSessionLive from "./PiSessionLive.ts"
import { type HostOptions, makeRuntimeHost } from "../runtime.ts"
import { notesToolSpecs } from "./notesTools.ts"
import { chatShowsEntries, showReport } from "./reportView.ts"
import { replyFacts, turnFacts } from "./turnFacts.ts"

/** Reports drawn as this adapter draws them: a chat entry in Pi's TUI, a notice elsewhere. */
const surface: PiSessionLive.ReportSurface = { show: showReport, chatShowsEntries }

/**
 * The host runtime with Pi's side of it: the PiSession port over each event's
 * `ctx`, tidy's own Pi session, and Pi's turn and reply events reduced to the
 * lifecycle's facts. Loaded with the runtime, after start-up: Pi's overflow
 * tests live in pi-ai's root module, which costs hundreds of ms to import.
 */
export const makePiHost = (pi: ExtensionAPI, options: HostOptions = {}) => {
  const reportedFaults = new Set<PiSessionLive.PiOperation>()

  /** A Pi call that threw on foreign data: traced each time, told once per operation. */
  const faultReporter = (ctx: ExtensionContext, trace: (event: string, fields: Readonly<Record<string, unknown>>) => void): PiSessionLive.PiFault =>
  ({ operation, error }) => {
    const reason = (error instanceof Error ? error.message : String(error)).split("\n", 1)[0]!.slice(0, 160)
    trace("pi.fault", { operation, reason })
    if (reportedFaults.has(operation)) return
    reportedFaults.add(operation)
    Effect.runSync(PiSessionLive.make(pi, ctx, surface).notify(
      `pi-context: Pi's ${operation} could not be read (${reason}); a session entry that another extension wrote ` +
        `may have a shape Pi does not expect. Until it can be read, ${PiSessionLive.faultFallback[operation]}.`,
      "warning"
    ))
  }

  const host = makeRuntimeHost<ExtensionContext>({
    session: (ctx, trace) => PiSessionLive.make(pi, ctx, surface, faultReporter(ctx, trace)),
    tidySession: async (ctx, request) => {
      const { runTidySession } = await import("./tidySession.ts")
      return runTidySession(ctx, {
        ...request,
        tools: request.tools.map(({ name, call }) => ({ spec: notesToolSpecs.find((spec) => spec.name === name)!, call }))
      })
    }
  }, options)

  return {
    ...host,
    turnEnd: (event: TurnEndEvent, ctx: ExtensionContext) =>
      host.turnEnd({
        incoming: event.entries,
        messages: event.context.contextMessages,
        toolTurn: event.toolResults.length > 0,
        queued: (event.context.pendingMessages ?? []).map((message) => message.timestamp),
        ...turnFacts(event.outcome, event.message, ctx)
      }, ctx),
    replyFinished: (message: AgentMessage, ctx: ExtensionContext) => host.replyFinished(replyFacts(message, ctx), ctx)
  }
}

/** The host over Pi's extension contexts. */
export type PiHost = ReturnType<typeof makePiHost>
