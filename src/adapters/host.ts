import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import * as PiSessionLive from "../layers/PiSessionLive.ts"
import { type Host, type HostOptions, makeHost } from "../runtime.ts"
import { notesToolSpecs } from "./notesTools.ts"

/** The host over Pi's extension contexts. */
export type PiHost = Host<ExtensionContext>

/** The host runtime, with Pi's side of it: the PiSession port over each event's `ctx`, and tidy's own Pi session. */
export const makePiHost = (pi: ExtensionAPI, options: HostOptions = {}): PiHost =>
  makeHost<ExtensionContext>({
    session: (ctx) => PiSessionLive.make(pi, ctx),
    tidySession: async (ctx, request) => {
      const { runTidySession } = await import("./tidySession.ts")
      return runTidySession(ctx, {
        ...request,
        tools: request.tools.map(({ name, call }) => ({ spec: notesToolSpecs.find((spec) => spec.name === name)!, call }))
      })
    }
  }, options)
