import { Cause, Effect, Layer, Option, Ref } from "effect"
import { quotedNamesText, renderBoot } from "./boot.ts"
import { notesCounted, type NotesSnapshot } from "../notes/snapshot.ts"
import { rootWindowId } from "../kernel/windowId.ts"
import { BootBuildFailed, Boots, type BootWindow, type RenderedBoot } from "./Boots.ts"
import { NotesHomes } from "../notes/NotesHomes.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Trace } from "../trace/Trace.ts"
import * as NotesHomesLive from "../notes/NotesHomesLive.ts"
import * as ThresholdsLive from "../settings/ThresholdsLive.ts"
import * as TraceLive from "../trace/TraceLive.ts"
import { plural } from "../kernel/plural.ts"
import { Homes } from "../kernel/homes.ts"
import { Notices } from "../kernel/Notices.ts"
import * as NoticesLive from "../kernel/NoticesLive.ts"
import { RootBlockedNotice, rootBlockedNotice } from "../notes/notesHealth.ts"

/** The notes a snapshot holds, as a boot's index shows them: ages aside, two boots of one fingerprint index the same notes. */
const notesFingerprint = (snapshot: NotesSnapshot): string =>
  JSON.stringify(snapshot.homes.map((home) =>
    home._tag === "Unavailable"
      ? [home.home, "unavailable"]
      : [home.home, home.noteCount, home.map?.updatedMs ?? null, home.map?.bytes ?? null, home.recent.map((row) => [row.address, row.bytes, row.updatedMs]), home.refused ?? []]
  ))

export const layerWithoutDependencies = Layer.effect(
  Boots,
  Effect.gen(function*() {
    const notes = yield* NotesHomes
    const notices = yield* Notices
    const thresholds = yield* Thresholds
    const trace = yield* Trace
    /** Boots whose incomplete index the user was told of: a boot written again (a repair) is not a new one. */
    const toldIncomplete = yield* Ref.make<ReadonlySet<string>>(new Set())

    const render = Effect.fn("Boots.render")(function*(window: BootWindow) {
      const session = yield* PiSession
      const identity = yield* notes.identity
      const model = yield* session.model
      const policy = yield* thresholds.policy
      // One closed snapshot per boundary: every home is read once, before rendering.
      const snapshot = yield* notes.snapshot()
      const boot = renderBoot({
        identity: {
          agentName: identity.agentName,
          model: Option.match(model, { onNone: () => "unknown model", onSome: (m) => `${m.provider}/${m.id}` }),
          modelSlug: identity.modelSlug,
          sessionId: session.sessionId,
          rootWindowId: rootWindowId(session.sessionId),
          currentWindowId: window.windowId,
          previousWindowId: window.previousWindowId
        },
        snapshot,
        budgetTokens: policy.bootBudgetTokens.value,
        now: snapshot.takenAt,
        continuity: window.continuity,
        afterReset: policy.afterReset.value
      })
      yield* trace.info("boot.rendered", {
        windowId: window.windowId,
        chars: boot.text.length,
        omittedRows: boot.omittedRows,
        unavailableHomes: boot.unavailableHomes.join(","),
        ...(window.continuity === undefined
          ? {}
          : { previousOrdinal: window.continuity.previousOrdinal, checkpointed: window.continuity.checkpointed })
      })
      const notesIndexed = snapshot.homes.reduce((sum, home) => sum + notesCounted(home), 0)
      return { text: boot.text, notesIndexed, unavailableHomes: boot.unavailableHomes, refused: boot.refused, notesFingerprint: notesFingerprint(snapshot) }
    }, (effect, window) =>
      Effect.catchCause(effect, (cause) =>
        Effect.fail(new BootBuildFailed({ windowId: window.windowId, reason: Cause.pretty(cause).split("\n")[0] ?? "unknown" }))))

    const tellIncomplete = (windowId: string, { refused, unavailableHomes }: Pick<RenderedBoot, "unavailableHomes" | "refused">) =>
      Effect.gen(function*() {
        if (unavailableHomes.length === 0 && refused.length === 0) return
        const told = yield* Ref.getAndUpdate(toldIncomplete, (seen) => new Set([...seen, windowId]))
        if (told.has(windowId)) return
        const session = yield* PiSession
        // Every home unreadable: the notes root is the likely cause, and it is told first, with its fix, not "index incomplete".
        const writable = unavailableHomes.length === Homes.length ? yield* notes.writability() : undefined
        if (writable?.rootWritability._tag === "Blocked") {
          yield* notices.tellOnce(RootBlockedNotice, rootBlockedNotice(writable.rootWritability, writable.root))
        } else if (unavailableHomes.length > 0) {
          yield* session.notify(
            `pi-context: notes index incomplete for ${unavailableHomes.join(", ")}; the boot asks the model to retry with notes_list.`,
            "warning"
          )
        }
        if (refused.length > 0) {
          // The same files are left out of every boot: told once per session, and again only if they change.
          const key = `refused:${refused.join("\0")}`
          if ((yield* Ref.getAndUpdate(toldIncomplete, (seen) => new Set([...seen, key]))).has(key)) return
          yield* session.notify(
            `pi-context: ${plural(refused.length, "file was", "files were")} left out of your notes because ` +
              `${refused.length === 1 ? "its name holds" : "their names hold"} a control or invisible character: ${quotedNamesText(refused)}. ` +
              "They are left where they are; rename them (for example with a file manager or `mv`) to use them as notes.",
            "warning"
          )
        }
      })

    return Boots.of({ render, tellIncomplete })
  })
)

/**
 * For tests: boots over the default policy, a silent trace and this session's
 * homes (kept in the context, for the lifecycle beside them); the test gives
 * the notes store.
 */
export const layerTest = layerWithoutDependencies.pipe(
  Layer.provideMerge(Layer.mergeAll(ThresholdsLive.layerTest, TraceLive.layerTest, NotesHomesLive.layerWithoutDependencies, NoticesLive.layer))
)

/** Boots with this session's notes homes, the policy and the trace it reads. */
export const layer = layerWithoutDependencies.pipe(
  Layer.provide(Layer.mergeAll(NotesHomesLive.layer, ThresholdsLive.layer, TraceLive.layer, NoticesLive.layer))
)
