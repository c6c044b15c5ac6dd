import { appendFileSync, mkdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { Effect, Layer, Logger, Option, References } from "effect"
import { Trace, type TraceLevel, type TraceTarget } from "../services/Trace.ts"

/** Appends one line to a file. Throws on failure; the logger contains it. */
export type TraceSink = (path: string, line: string) => void

const fileSink: TraceSink = (path, line) => {
  mkdirSync(dirname(path), { recursive: true })
  appendFileSync(path, line)
}

/** Marks a log entry as a trace line, so unrelated Effect logs never reach the file. */
const traceEventKey = "pi-context.event"

interface TraceState {
  path: string | undefined
  sessionId: string | undefined
  windowId: string | undefined
  level: TraceLevel
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
      event
    })
    try {
      sink(state.path, `${line}\n`)
    } catch (error) {
      // A trace must never fail the hook that wrote it: stop tracing and say so once.
      state.failure = `pi-context trace disabled: cannot write ${state.path} (${error instanceof Error ? error.message : String(error)})`
    }
  })

/**
 * The trace service and the Effect logger that writes it. The logger replaces
 * Effect's default console logger: Pi owns stdout, so nothing may print there.
 */
export const layerWith = (sink: TraceSink): Layer.Layer<Trace> =>
  Layer.unwrap(Effect.sync(() => {
    const state: TraceState = {
      path: undefined,
      sessionId: undefined,
      windowId: undefined,
      level: "info",
      failure: undefined,
      failureReported: false
    }
    const record = (logLevel: "Info" | "Debug") => (event: string, fields: Readonly<Record<string, unknown>> = {}) =>
      (logLevel === "Info" ? Effect.logInfo(event) : Effect.logDebug(event)).pipe(
        Effect.annotateLogs({ ...fields, [traceEventKey]: event })
      )
    const service = Trace.of({
      open: (target: TraceTarget) =>
        Effect.sync(() => {
          state.path = target.level === "off" ? undefined : tracePath(target.agentDir, target.sessionId)
          state.sessionId = target.sessionId
          state.level = target.level
        }),
      setWindow: (windowId) => Effect.sync(() => void (state.windowId = windowId)),
      filePath: Effect.sync(() => Option.fromNullishOr(state.path)),
      info: record("Info"),
      debug: record("Debug"),
      takeFailure: Effect.sync(() => {
        if (state.failure === undefined || state.failureReported) return Option.none()
        state.failureReported = true
        return Option.some(state.failure)
      })
    })
    return Layer.merge(
      Layer.succeed(Trace, service),
      Layer.mergeAll(
        Logger.layer([makeLogger(state, sink)], { mergeWithExisting: false }),
        Layer.succeed(References.MinimumLogLevel, "Debug")
      )
    )
  }))

export const layer: Layer.Layer<Trace> = layerWith(fileSink)
