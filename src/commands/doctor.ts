import { Clock, Effect, Option, Path } from "effect"
import { hardLineBelowReserve } from "../budget/reminders.ts"
import { SyncSettingKey } from "../settings/sync.ts"
import { syncDoctorLine } from "../notes/sync/syncView.ts"
import { CommandName } from "../kernel/protocol.ts"
import { textReport } from "../kernel/report.ts"
import { renderNotice, type ValueSource } from "../settings/policy.ts"
import { NotesVersions } from "../notes/versions/NotesVersions.ts"
import { NotesHomes } from "../notes/NotesHomes.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { describeTrace, Trace } from "../trace/Trace.ts"
import { Window } from "../window/Window.ts"
import { blockedFix, blockedReason, notesRootFix, notesWritability } from "../notes/notesHealth.ts"
import { report, subcommand } from "../kernel/Subcommand.ts"
import { notesLintLines } from "../notes/notesLint.ts"
import { readSyncStates } from "../notes/sync/syncCommand.ts"
import { plural } from "../kernel/plural.ts"
import { inspectBranch } from "../window/tail.ts"
import { notesCounted } from "../notes/snapshot.ts"
import { type Home, homeLabel } from "../kernel/homes.ts"

const check = (ok: boolean, text: string) => `${ok ? "ok  " : "FAIL"} ${text}`

/** `/pi-context doctor`: what could stop pi-context from working here, each with its fix. Reads only. */
export const doctorReport = Effect.gen(function*() {
  const session = yield* PiSession
  const notes = yield* NotesHomes
  const thresholds = yield* Thresholds
  const trace = yield* Trace
  const path = yield* Path.Path
  const lines: Array<string> = ["pi-context doctor"]

  const identity = yield* notes.identity
  const snapshot = yield* notes.snapshot()
  const writable = yield* notesWritability
  lines.push(
    writable.rootWritability._tag === "Writable"
      ? check(true, `notes root: ${identity.root}`)
      : check(false, `notes root: ${blockedReason(writable.rootWritability, identity.root, "it")} (${writable.rootWritability.at}); ${notesRootFix}`)
  )
  for (const home of snapshot.homes) {
    const writability = writable.homes.find((entry) => entry.home === home.home)?.writability
    lines.push(
      // A file in the way also makes the home unreadable; saying so is the more useful of the two.
      writability?._tag === "Blocked"
        ? check(false, `notes home ${home.home}: cannot be written, ${blockedReason(writability, path.join(identity.root, home.location), "it")}; ${blockedFix(writability)}`)
        : home._tag === "Unavailable"
        ? check(false, `notes home ${home.home}: unreadable (${home.reason}); fix the permissions of ${home.location} under ${identity.root}`)
        : check(true, `notes home ${home.home}: ${plural(notesCounted(home), "note")}${home.map === undefined ? ", no MAP.md" : ", MAP.md among them"} (${home.location})`)
    )
  }

  const history = yield* (yield* NotesVersions).describe
  lines.push(check(history.ok, history.text), ...(yield* notesLintLines))

  const policy = yield* thresholds.policy
  const belowReserve = hardLineBelowReserve(policy)
  // Each problem with the file that holds it, to fix it there (a value given through Pi or injected has no file).
  const settingsFile = (source: ValueSource | undefined) =>
    source === "global" ? path.join(session.agentDir, "settings.json") : source === "project" ? path.join(session.cwd, ".pi", "settings.json") : undefined
  const fixIn = (source: ValueSource | undefined) => {
    const file = settingsFile(source)
    return file === undefined ? "" : `; fix it in ${file}, then run /reload`
  }
  const problems = [
    ...policy.notices.map((notice) => `${renderNotice(notice).replace(/\.$/, "")}${fixIn(notice.source)}`),
    ...(belowReserve === undefined ? [] : [`${belowReserve}${fixIn(policy.lines.hard.file ?? policy.lines.hard.source)}`])
  ]
  // One line per problem: run together in one paragraph they were hard to tell apart.
  lines.push(...(problems.length === 0 ? [check(true, "settings: no problems")] : problems.map((problem) => check(false, `settings: ${problem}`))))
  const homes = (list: ReadonlyArray<Home>) => (list.length === 0 ? "none" : list.map(homeLabel).join(", "))
  lines.push(check(true, `notes protection: protected ${homes(policy.protectedHomes.value)} (changes need your OK), read-only ${homes(policy.readOnlyHomes.value)}`))

  const syncStates = yield* readSyncStates
  const nowMs = yield* Clock.currentTimeMillis
  if (Option.isSome(syncStates) && syncStates.value.length > 0) {
    for (const state of syncStates.value) {
      const line = syncDoctorLine(state, nowMs)
      lines.push(check(line.ok, line.text))
    }
  } else {
    lines.push(
      policy.sync.length === 0
        ? policy.notices.some((notice) => notice.key.startsWith(SyncSettingKey))
          ? check(false, "notes sync: no remote set, since each pi-context.sync entry was ignored (see settings); the notes stay on this machine")
          : check(true, "notes sync: no remote configured; the notes stay on this machine")
        : check(false, `notes sync: ${plural(policy.sync.length, "remote")} configured, but notes sync is not running in this session`)
    )
  }

  const inspection = inspectBranch(yield* (yield* Window).spans, session.sessionId)
  lines.push(
    inspection._tag === "Refuse"
      ? check(false, `reset boundary of ${inspection.windowId}: ${inspection.reason}; run /${CommandName.wipeMemory}`)
      : inspection._tag === "Repair"
      ? check(false, `reset boundary of ${inspection.windowId} lacks its ${inspection.missing.join(" and ")}; restart Pi or navigate /tree to repair it`)
      : check(true, "reset boundary: complete")
  )
  const unreadable = yield* (yield* Window).unreadable
  lines.push(
    unreadable.length === 0
      ? check(true, "pi-context entries: all readable")
      : check(
        false,
        `${plural(unreadable.length, "unreadable pi-context entry is", "unreadable pi-context entries are")} ignored: ${unreadable.slice(0, 5).map((e) => `${e.id} (${e.reason})`).join(", ")}; ` +
          "written by another version of pi-context or edited by hand, they are left in the session as they are: nothing to fix unless a reset is missing"
      )
  )

  const traceStatus = yield* trace.status
  lines.push(check(traceStatus._tag !== "Failed", describeTrace(traceStatus)))
  return lines.join("\n")
})

/** Shown as a report, so it stays in the chat when the next command runs. */
export const doctor = subcommand({ name: "doctor", run: () => Effect.map(doctorReport, (text) => report(textReport(text))) })
