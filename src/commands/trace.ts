import { Effect, FileSystem, Option, Schema } from "effect"
import { describeTrace, Trace } from "../services/Trace.ts"
import { subcommand } from "./Subcommand.ts"

const decodeTraceLine = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Struct({ ts: Schema.optional(Schema.String), event: Schema.optional(Schema.String) }))
)

/** `/pi-context trace`: the trace file and its last events. */
const report = Effect.gen(function*() {
  const trace = yield* Trace
  const fs = yield* FileSystem.FileSystem
  const status = yield* trace.status
  if (status._tag === "Off") return "pi-context trace is off (setting pi-context.traceLevel)."
  // After a write failure the lines written before it are still worth showing.
  const text = yield* fs.readFileString(status.path).pipe(Effect.orElseSucceed(() => ""))
  const recent = text.trimEnd().split("\n").filter((line) => line.length > 0).slice(-15).map((line) => {
    const parsed = Option.getOrElse(decodeTraceLine(line), () => ({ ts: undefined, event: undefined }))
    return `  ${(parsed.ts ?? "").slice(11, 19)} ${parsed.event ?? "(unreadable line)"}`
  })
  const head = status._tag === "Failed" ? `pi-context ${describeTrace(status)}` : `pi-context trace: ${status.path}`
  return [head, ...(recent.length === 0 ? ["  (empty)"] : recent)].join("\n")
})

export const trace = subcommand({ name: "trace", run: () => report })
