import { Context, type Effect } from "effect"
import type { TraceLevel } from "../settings/checks.ts"

export interface TraceTarget {
  readonly sessionId: string
  readonly agentDir: string
  readonly level: TraceLevel
}

/** Whether the trace is being written, and if not, why. */
export type TraceStatus =
  | { readonly _tag: "Writing"; readonly path: string }
  | { readonly _tag: "Off" }
  | { readonly _tag: "Failed"; readonly path: string; readonly reason: string }

/** The `/pi-context status` and doctor line for the trace. */
export const describeTrace = (status: TraceStatus): string => {
  switch (status._tag) {
    case "Writing":
      return `trace: ${status.path}`
    case "Off":
      return "trace: off (pi-context.traceLevel)"
    case "Failed":
      return `trace off: ${status.reason}; make its folder writable, or set pi-context.traceLevel to "off"`
  }
}

/**
 * Structured decision log: one JSON object per line in
 * `<agentDir>/pi-context/traces/<sessionId>.jsonl`, each line in the window
 * the Window room last opened. Tracing never fails a caller; a write error
 * turns the trace off and is reported once.
 */
export class Trace extends Context.Service<Trace, {
  /** Points the trace at a session's file and level (on session start). */
  readonly open: (target: TraceTarget) => Effect.Effect<void>
  /** Writing to its file, off by the setting, or failed (and turned off) on a write error. */
  readonly status: Effect.Effect<TraceStatus>
  /** A decision worth keeping. Fields must not carry message bodies or note contents. */
  readonly info: (event: string, fields?: Readonly<Record<string, unknown>>) => Effect.Effect<void>
  /** Detail for debugging; may carry sizes and excerpts. */
  readonly debug: (event: string, fields?: Readonly<Record<string, unknown>>) => Effect.Effect<void>
}>()("pi-context/Trace") {}
