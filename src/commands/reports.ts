import { Effect, FileSystem, Option, Schema } from "effect"
import { inspectTail } from "../domain/boundary.ts"
import { CommandName } from "../domain/protocol.ts"
import { renderNotice } from "../domain/thresholds.ts"
import { NotesHistory } from "../services/NotesHistory.ts"
import { NotesStore } from "../services/NotesStore.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"
import { Trace } from "../services/Trace.ts"
import { Window } from "../services/Window.ts"
import { notesIdentity } from "../tools/notes.ts"
import { notesLintLines } from "./notesLint.ts"

const check = (ok: boolean, text: string) => `${ok ? "ok  " : "FAIL"} ${text}`

/** `/pi-context doctor`: what could stop pi-context from working here, each with its fix. Reads only. */
export const doctorReport = Effect.gen(function*() {
  const session = yield* PiSession
  const notes = yield* NotesStore
  const thresholds = yield* Thresholds
  const trace = yield* Trace
  const lines: Array<string> = ["pi-context doctor"]

  const identity = yield* notesIdentity()
  const snapshot = yield* notes.snapshot(identity)
  for (const home of snapshot.homes) {
    lines.push(
      home._tag === "Available"
        ? check(true, `notes home ${home.home}: ${home.noteCount} notes${home.map === undefined ? ", no MAP.md" : ""} (${home.location})`)
        : check(false, `notes home ${home.home}: unreadable (${home.reason}); fix the permissions of ${home.location} under ${identity.root}`)
    )
  }

  const history = yield* (yield* NotesHistory).describe
  lines.push(check(history.ok, history.text), ...(yield* notesLintLines(identity)))

  const policy = yield* thresholds.policy
  lines.push(
    policy.notices.length === 0
      ? check(true, "settings: no problems")
      : check(false, `settings: ${policy.notices.map(renderNotice).join("; ")}`)
  )

  const inspection = inspectTail((yield* (yield* Window).current).tail)
  lines.push(
    inspection._tag === "Refuse"
      ? check(false, `reset boundary of ${inspection.windowId}: ${inspection.reason}; run /${CommandName.wipeMemory}`)
      : inspection._tag === "Repair"
      ? check(false, `reset boundary of ${inspection.windowId} lacks its ${inspection.missing.join(" and ")}; restart Pi or navigate /tree to repair it`)
      : check(true, "reset boundary: complete")
  )
  const unreadable = (yield* session.branch).flatMap((entry) => (entry._tag === "Foreign" && entry.ours ? [entry] : []))
  lines.push(
    unreadable.length === 0
      ? check(true, "pi-context entries: all readable")
      : check(false, `${unreadable.length} unreadable pi-context entries are ignored: ${unreadable.slice(0, 5).map((e) => `${e.id} (${e.reason})`).join(", ")}`)
  )

  const path = yield* trace.filePath
  lines.push(Option.match(path, { onNone: () => check(true, "trace: off"), onSome: (file) => check(true, `trace: ${file}`) }))
  return lines.join("\n")
})

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
  const path = yield* trace.filePath
  if (Option.isNone(path)) return "pi-context trace is off (setting pi-context.traceLevel)."
  const text = yield* fs.readFileString(path.value).pipe(Effect.orElseSucceed(() => ""))
  const recent = text.trimEnd().split("\n").filter((line) => line.length > 0).slice(-20).map(traceLineText)
  return [`pi-context trace: ${path.value}`, ...(recent.length === 0 ? ["  (empty)"] : recent)].join("\n")
})
