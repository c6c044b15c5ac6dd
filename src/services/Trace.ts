import { Context, type Effect, type Option } from "effect"

export type TraceLevel = "off" | "info" | "debug"

export interface TraceTarget {
  readonly sessionId: string
  readonly agentDir: string
  readonly level: TraceLevel
}

/**
 * Structured decision log: one JSON object per line in
 * `<agentDir>/pi-context/traces/<sessionId>.jsonl`. Tracing never fails a
 * caller; a write error turns the trace off and is reported once.
 */
export class Trace extends Context.Service<Trace, {
  /** Points the trace at a session's file and level (on session start). */
  readonly open: (target: TraceTarget) => Effect.Effect<void>
  /** Records which window later lines belong to. */
  readonly setWindow: (windowId: string) => Effect.Effect<void>
  readonly filePath: Effect.Effect<Option.Option<string>>
  /** A decision worth keeping. Fields must not carry message bodies or note contents. */
  readonly info: (event: string, fields?: Readonly<Record<string, unknown>>) => Effect.Effect<void>
  /** Detail for debugging; may carry sizes and excerpts. */
  readonly debug: (event: string, fields?: Readonly<Record<string, unknown>>) => Effect.Effect<void>
  /** The write failure to report to the user, once; afterwards None. */
  readonly takeFailure: Effect.Effect<Option.Option<string>>
}>()("pi-context/Trace") {}
