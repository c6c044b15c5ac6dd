import { appendFileSync, mkdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { Effect, Layer, Logger, References } from "effect"
import { Notices } from "../kernel/Notices.ts"
import { Trace, type TraceStatus, type TraceTarget } from "./Trace.ts"
import type { TraceLevel } from "../settings/checks.ts"
import { Window } from "../window/Window.ts"
import * as NoticesLive from "../kernel/NoticesLive.ts"
import * as WindowLive from "../window/WindowLive.ts"

/** Appends one line to a file. Throws on failure; the logger contains it. */
export type TraceSink = (path: string, line: string) => void

const fileSink: TraceSink = (path, line) => {
  mkdirSync(dirname(path), { recursive: true })
  appendFileSync(path, line)
}

/** The system error code (EACCES, ENOSPC, ENOTDIR), which names the problem without repeating the path. */
const failureCode = (error: unknown): string => {
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined
  return typeof code === "string" ? code : error instanceof Error ? error.name : "write failed"
}

/** Marks a log entry as a trace line, so unrelated Effect logs never reach the file. */
const traceEventKey = "pi-context.event"

interface TraceState {
  path: string | undefined
  sessionId: string | undefined
  windowId: string | undefined
  window: string | undefined
  level: TraceLevel
  /** The error code of the write that failed; tracing stays off for this file. */
  failure: string | undefined
  failureReported: boolean
}

export const tracePath = (agentDir: string, sessionId: string): string =>
  join(agentDir, "pi-context", "traces", `${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`)

const admits = (level: TraceLevel, entry: "Info" | "Debug"): boolean =>
  level === "debug" || (level === "info" && entry === "Info")

const makeLogger = (state: TraceState, sink: TraceSink) =>
  Logger.make(({ date, fiber, logLevel }) => {
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    const event = annotations[traceEventKey]
    if (typeof event !== "string" || state.path === undefined || state.failure !== undefined) return
    if (logLevel !== "Info" && logLevel !== "Debug") return
    if (!admits(state.level, logLevel)) return
    const fields: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(annotations)) if (key !== traceEventKey) fields[key] = value
    // The reserved keys come last, so a field can never overwrite them.
    const line = JSON.stringify({
      ...fields,
      ts: date.toISOString(),
      level: logLevel.toLowerCase(),
      sessionId: state.sessionId,
      windowId: state.windowId,
      window: state.window,
      event
    })
    try {
      sink(state.path, `${line}\n`)
    } catch (error) {
      // A trace must never fail the hook that wrote it: stop tracing and say so once.
      state.failure = failureCode(error)
    }
  })

/**
 * The trace service and the Effect logger that writes it. The logger replaces
 * Effect's default console logger: Pi owns stdout, so nothing may print there.
 * Its lines belong to the window the Window room last opened.
 */
export const layerWith = (sink: TraceSink): Layer.Layer<Trace, never, Notices> =>
  Layer.unwrap(Effect.gen(function*() {
    const state: TraceState = {
      path: undefined,
      sessionId: undefined,
      windowId: undefined,
      window: undefined,
      level: "info",
      failure: undefined,
      failureReported: false
    }
    const notices = yield* Notices
    /** The file's write failure, told once: the logger that met it cannot tell anyone itself. */
    const tellFailure = Effect.suspend(() => {
      if (state.failure === undefined || state.failureReported) return Effect.void
      state.failureReported = true
      return notices.tell(
        `pi-context trace disabled: it cannot write its file (${state.failure}). ` +
          "Nothing else is affected; /pi-context status shows where the file was."
      )
    })
    const record = (logLevel: "Info" | "Debug") => (event: string, fields: Readonly<Record<string, unknown>> = {}) =>
      (logLevel === "Info" ? Effect.logInfo(event) : Effect.logDebug(event)).pipe(
        Effect.annotateLogs({ ...fields, [traceEventKey]: event }),
        Effect.andThen(tellFailure)
      )
    const service = Trace.of({
      open: (target: TraceTarget) =>
        Effect.sync(() => {
          const path = target.level === "off" ? undefined : tracePath(target.agentDir, target.sessionId)
          // Another file is another chance: a failure belongs to the file it happened on.
          if (path !== state.path) {
            state.failure = undefined
            state.failureReported = false
          }
          state.path = path
          state.sessionId = target.sessionId
          state.level = target.level
        }),
      status: Effect.sync((): TraceStatus =>
        state.path === undefined
          ? { _tag: "Off" }
          : state.failure === undefined
          ? { _tag: "Writing", path: state.path }
          : { _tag: "Failed", path: state.path, reason: `cannot write ${state.path} (${state.failure})` }
      ),
      info: record("Info"),
      debug: record("Debug")
    })
    yield* (yield* Window).subscribe((event) =>
      Effect.sync(() => {
        if (event._tag !== "WindowOpened") return
        state.windowId = event.id
        state.window = `w${event.ordinal}`
      })
    )
    return Layer.merge(
      Layer.succeed(Trace, service),
      Layer.mergeAll(
        Logger.layer([makeLogger(state, sink)], { mergeWithExisting: false }),
        Layer.succeed(References.MinimumLogLevel, "Debug")
      )
    )
  })).pipe(Layer.provide(WindowLive.layer))

export const layer: Layer.Layer<Trace> = layerWith(fileSink).pipe(Layer.provide(NoticesLive.layer))

/** For tests: a trace that writes nowhere, or to the console when DEBUG_TRACE is set. */
export const layerTest: Layer.Layer<Trace> = layerWith((_path, line) => {
  if (process.env.DEBUG_TRACE) console.log(line)
}).pipe(Layer.provide(NoticesLive.layer))
