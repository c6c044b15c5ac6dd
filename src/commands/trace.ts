import { Effect, FileSystem, Option, Schema } from "effect"
import { Trace } from "../services/Trace.ts"
import { subcommand } from "./Subcommand.ts"

const decodeTraceLine = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Struct({ ts: Schema.optional(Schema.String), event: Schema.optional(Schema.String) }))
)

/** `/pi-context trace`: the trace file and its last events. */
const report = Effect.gen(function*() {
  const trace = yield* Trace
  const fs = yield* FileSystem.FileSystem
  const path = yield* trace.filePath
  if (Option.isNone(path)) return "pi-context trace is off (setting pi-context.traceLevel)."
  const text = yield* fs.readFileString(path.value).pipe(Effect.orElseSucceed(() => ""))
  const recent = text.trimEnd().split("\n").filter((line) => line.length > 0).slice(-15).map((line) => {
    const parsed = Option.getOrElse(decodeTraceLine(line), () => ({ ts: undefined, event: undefined }))
    return `  ${(parsed.ts ?? "").slice(11, 19)} ${parsed.event ?? "(unreadable line)"}`
  })
  return [`pi-context trace: ${path.value}`, ...(recent.length === 0 ? ["  (empty)"] : recent)].join("\n")
})

export const trace = subcommand({ name: "trace", run: () => report })
