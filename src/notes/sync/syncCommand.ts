import { Clock, Effect, Option } from "effect"
import { syncNeedsAttention, syncNowText, syncStatusText } from "./syncView.ts"
import { NotesSync } from "./NotesSync.ts"
import type { RemoteSyncState } from "./syncTypes.ts"
import type { PiSession } from "../../kernel/PiSession.ts"
import { notice, type Reply, report } from "../../kernel/Subcommand.ts"

export const notesSyncUsage = "pi-context notes sync: /pi-context notes sync (each remote's state) | /pi-context notes sync now (pull and push now)"

/**
 * The remotes' states; none when this session runs no notes sync at all
 * (it is read optionally, so nothing else depends on it).
 */
export const readSyncStates: Effect.Effect<Option.Option<ReadonlyArray<RemoteSyncState>>, never, PiSession> =
  Effect.flatMap(Effect.serviceOption(NotesSync), (sync) => Option.isNone(sync) ? Effect.succeedNone : Effect.map(sync.value.states, Option.some))

const unavailable = notice("pi-context: notes sync is not running in this session.", "warning")

/** `/pi-context notes sync [now]`: a report that stays in the chat, a warning when a remote needs the user. */
export const notesSyncCommand = (args: ReadonlyArray<string>): Effect.Effect<Reply<never>, never, PiSession> =>
  Effect.gen(function*() {
    const [word, ...extra] = args
    if (extra.length > 0 || (word !== undefined && word !== "now")) return notice(notesSyncUsage, "warning")
    const sync = yield* Effect.serviceOption(NotesSync)
    if (Option.isNone(sync)) return unavailable
    const states = yield* (word === "now" ? sync.value.syncNow : sync.value.states)
    const setup = yield* sync.value.setup
    const nowMs = yield* Clock.currentTimeMillis
    const text = word === "now" ? syncNowText(states, nowMs, setup) : syncStatusText(states, nowMs, setup)
    const [title = "", ...body] = text.split("\n")
    const attention = syncNeedsAttention(states) || (states.length === 0 && setup.ignored.length > 0)
    return report({ kind: "text", title, text: body.join("\n"), ...(attention ? { level: "warning" as const } : {}) })
  })
