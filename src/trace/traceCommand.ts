import { Effect, FileSystem, Option, Schema } from "effect"
import { textReport } from "../kernel/report.ts"
import { describeTrace, Trace } from "./Trace.ts"
import { report, subcommand } from "../kernel/Subcommand.ts"

const decodeTraceLine = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Struct({
    ts: Schema.optional(Schema.String),
    event: Schema.optional(Schema.String),
    window: Schema.optional(Schema.String),
    reason: Schema.optional(Schema.Unknown),
    source: Schema.optional(Schema.Unknown)
  }))
)

/** One trace line as the user reads it: time, window, event, then its source and reason when it has them. */
export const traceLineText = (line: string): string =>
  Option.match(decodeTraceLine(line), {
    onNone: () => "  (unreadable line)",
    onSome: (parsed) => {
      const source = typeof parsed.source === "string" && parsed.source !== "" ? ` [${parsed.source}]` : ""
      const reason = typeof parsed.reason === "string" && parsed.reason !== "" ? `: ${parsed.reason}` : ""
      return `  ${(parsed.ts ?? "").slice(11, 19)} ${(parsed.window ?? "").padEnd(3)} ${parsed.event ?? "(no event)"}${source}${reason}`
    }
  })

/** `/pi-context trace`: the trace file and its last events, each with its window, source and reason. */
export const traceReport = Effect.gen(function*() {
  const trace = yield* Trace
  const fs = yield* FileSystem.FileSystem
  const status = yield* trace.status
  if (status._tag === "Off") return "pi-context trace is off (setting pi-context.traceLevel)."
  // After a write failure the lines written before it are still worth showing.
  const text = yield* fs.readFileString(status.path).pipe(Effect.orElseSucceed(() => ""))
  const recent = text.trimEnd().split("\n").filter((line) => line.length > 0).slice(-20).map(traceLineText)
  const head = status._tag === "Failed" ? `pi-context ${describeTrace(status)}` : `pi-context trace: ${status.path}`
  return [head, ...(recent.length === 0 ? ["  (empty)"] : recent)].join("\n")
})

/** Shown as a report, so it stays in the chat when the next command runs. */
export const trace = subcommand({ name: "trace", run: () => Effect.map(traceReport, (text) => report(textReport(text))) })
