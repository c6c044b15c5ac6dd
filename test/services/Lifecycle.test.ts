import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { CustomType } from "../../src/kernel/protocol.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import { Lifecycle } from "../../src/reset/Lifecycle.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"
import { checkpointEntry, fakeEntry, type FakeSession, makeFakeSession, messageEntry } from "../support/FakePiSession.ts"
import * as LifecycleLive from "../../src/reset/LifecycleLive.ts"

/** A notes store whose snapshot is supplied by the test; nothing else is used by a boundary. */
const notesWithSnapshot = (snapshot: NotesStore["Service"]["snapshot"]) =>
  Layer.mock(NotesStore)({
    snapshot,
    projectKey: () => Effect.succeed("project-0000"),
    copySessionHome: () => Effect.succeed({ copied: 0 })
  })

const emptySnapshot: NotesStore["Service"]["snapshot"] = () =>
  Effect.succeed({
    takenAt: 0,
    homes: (["session", "project", "user", "agent", "model"] as const).map((home) => ({
      _tag: "Available" as const,
      home,
      location: home,
      map: undefined,
      recent: [],
      noteCount: 0
    }))
  })

/** A turn's end: what the lifecycle hands Pi (the boundary hooks needed after it are checked elsewhere). */
const turn = (fake: FakeSession, input: Parameters<Lifecycle["Service"]["turnEnded"]>[0]) =>
  Lifecycle.use((lifecycle) => lifecycle.turnEnded(input)).pipe(Effect.map(({ reply }) => reply), Effect.provide(fake.layer))

const requestWipe = (fake: FakeSession) => Lifecycle.use((lifecycle) => lifecycle.requestWipe).pipe(Effect.provide(fake.layer))

const incoming = [{ type: "custom", customType: "other-extension/state", data: { n: 1 } }]

describe("Lifecycle", () => {
  it.effect("an abort while the notes snapshot is read interrupts the read and writes no boundary", () => {
    const abort = new AbortController()
    const fake = makeFakeSession({ signal: abort.signal, entries: [messageEntry("user", "hello"), checkpointEntry()] })
    return Effect.gen(function*() {
      const reading = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const slowSnapshot: NotesStore["Service"]["snapshot"] = () =>
        Deferred.succeed(reading, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
      yield* Effect.gen(function*() {
        yield* requestWipe(fake)
        const fiber = yield* Effect.forkChild(turn(fake, { incoming, outcome: "completed", overflow: false, toolTurn: true }))
        yield* Deferred.await(reading)
        abort.abort()
        const reply = yield* Fiber.join(fiber)
        assert.isUndefined(reply)
        yield* Deferred.await(interrupted)
      }).pipe(Effect.provide(LifecycleLive.layerTestWith(notesWithSnapshot(slowSnapshot))))
    })
  })

  it.effect("a failed boot keeps the incoming drafts, requests no continuation, and says why", () => {
    const fake = makeFakeSession({ entries: [messageEntry("user", "hello"), checkpointEntry()] })
    return Effect.gen(function*() {
      yield* requestWipe(fake)
      const reply = yield* turn(fake, { incoming, outcome: "completed", overflow: false, toolTurn: true })
      // No reply leaves Pi's own drafts on the boundary untouched, and asks for no continuation.
      assert.isUndefined(reply)
      assert.isTrue(fake.notices.some((notice) => notice.level === "error" && notice.message.includes("no reset was written")))
    }).pipe(Effect.provide(LifecycleLive.layerTestWith(notesWithSnapshot(() => Effect.die(new Error("EIO: disk gone"))))))
  })

  it.effect("a committed boundary is the incoming drafts, then context edits hiding what Pi's context held, marker, boot and continuation, with continue", () => {
    const fake = makeFakeSession({ entries: [messageEntry("user", "hello"), checkpointEntry()] })
    return Effect.gen(function*() {
      const first = yield* requestWipe(fake)
      const second = yield* requestWipe(fake)
      assert.isTrue(first.scheduled)
      assert.include(second.text, "already scheduled")
      const reply = yield* turn(fake, { incoming, outcome: "completed", overflow: false, toolTurn: true })
      assert.strictEqual(reply?.continue, true)
      const drafts = reply!.entries as Array<{ type: string; customType?: string; targetId?: string; data?: { windowId: string }; details?: { windowId: string } }>
      // Every message Pi's own context held is hidden by one edit.
      const edited = drafts.filter((e) => e.type === "context_edit").map((e) => e.targetId)
      const held = fake.entries.filter((e) => e.type === "message" || e.type === "custom_message").map((e) => e.id)
      assert.isAbove(held.length, 1)
      assert.deepStrictEqual(edited, held)
      const entries = drafts.filter((e) => e.type !== "context_edit")
      assert.deepStrictEqual(entries.map((e) => e.customType ?? e.type), [
        "other-extension/state",
        CustomType.resetMarker,
        CustomType.boot,
        CustomType.continuation
      ])
      // The edits follow the marker: cut off among them, the boundary is a marker and metadata, which start-up completes.
      assert.strictEqual(drafts.findIndex((e) => e.type === "context_edit"), 2)
      assert.strictEqual(entries[2]!.details!.windowId, entries[1]!.data!.windowId)
      // The request was consumed: the next completed turn commits nothing.
      assert.isUndefined(yield* turn(fake, { incoming: [], outcome: "completed", overflow: false }))
    }).pipe(Effect.provide(LifecycleLive.layerTestWith(notesWithSnapshot(emptySnapshot))))
  })

  it.effect("project returns the final warning as data, and each reply says which boundary hooks are needed next", () => {
    const model = { provider: "faux", id: "faux-1", contextWindow: 200_000 }
    const sessionId = "0123abcd-0000-7000-8000-0000000000bb"
    const fake = makeFakeSession({ sessionId, model, usage: { tokens: 1_000, contextWindow: 200_000 }, entries: [messageEntry("user", "hello")] })
    // A root window with no reply yet: the request's size is its own chars/4, here past the warning line.
    const request = [{ role: "user", content: "x".repeat(4 * 180_000) }]
    return Effect.gen(function*() {
      const quiet = yield* Lifecycle.use((l) => l.turnEnded({ incoming: [], outcome: "completed", overflow: false })).pipe(Effect.provide(fake.layer))
      assert.deepStrictEqual(quiet, { reply: undefined, needs: { turnEnd: false, beforeSettle: false } })
      const projected = yield* Lifecycle.use((l) => l.project(request)).pipe(Effect.provide(fake.layer))
      // Pi's request is sent as built; the warning comes back as text for the adapter to append.
      assert.isUndefined(projected.messages)
      assert.deepStrictEqual(projected.reminders.map((reminder) => reminder.customType), [CustomType.warning])
      assert.isTrue(projected.reminders[0]!.content.startsWith("[pi-context] Final context warning"))
      assert.isTrue(Option.isNone(projected.closeOut))
      assert.strictEqual(projected.windowId, rootWindowId(sessionId))
      assert.isTrue(projected.needs.turnEnd)
      // The warning's draft goes out at turn_end; the hard line is not reached, so nothing else is needed.
      const ended = yield* Lifecycle.use((l) => l.turnEnded({ incoming: [], outcome: "completed", overflow: false })).pipe(Effect.provide(fake.layer))
      assert.deepStrictEqual((ended.reply?.entries as ReadonlyArray<{ customType: string }>).map((e) => e.customType), [CustomType.warning])
      assert.isFalse(ended.needs.beforeSettle)
    }).pipe(Effect.provide(LifecycleLive.layerTestWith(notesWithSnapshot(emptySnapshot))))
  })

  it.effect("/wipe-memory that meets a starting run tells of the incomplete notes index once, for the boot it writes at settlement", () => {
    const fake = makeFakeSession({ entries: [messageEntry("user", "hello"), messageEntry("assistant", "hi")] })
    let reads = 0
    // The user home cannot be read, and the first read is where a prompt starts its run.
    const snapshot: NotesStore["Service"]["snapshot"] = () =>
      Effect.map(emptySnapshot(undefined as never), (taken) => {
        if (reads++ === 0) fake.idle = false
        return { ...taken, homes: taken.homes.map((home) => (home.home === "user" ? { _tag: "Unavailable" as const, home: "user" as const, location: "user", reason: "EACCES" } : home)) }
      })
    const incomplete = () => fake.notices.filter((notice) => notice.message.includes("notes index incomplete for user"))
    return Effect.gen(function*() {
      yield* Lifecycle.use((lifecycle) => lifecycle.wipeNow).pipe(Effect.provide(fake.layer))
      assert.isTrue(fake.notices.some((notice) => notice.message.includes("will reset when idle")))
      assert.strictEqual(incomplete().length, 0)
      fake.idle = true
      yield* Lifecycle.use((lifecycle) => lifecycle.settled(false)).pipe(Effect.provide(fake.layer))
      assert.deepStrictEqual(fake.appended.map((entry) => entry.customType), [CustomType.resetMarker])
      assert.strictEqual(reads, 2)
      assert.strictEqual(incomplete().length, 1)
    }).pipe(Effect.provide(LifecycleLive.layerTestWith(notesWithSnapshot(snapshot))))
  })

  it.effect("wipe_memory records nothing while pi-context is off", () => {
    const fake = makeFakeSession({ entries: [fakeEntry({ type: "custom", customType: CustomType.state, data: { enabled: false } })] })
    return Effect.gen(function*() {
      const reply = yield* requestWipe(fake)
      assert.isFalse(reply.scheduled)
      assert.include(reply.text, "pi-context is off")
      assert.isUndefined(yield* turn(fake, { incoming: [], outcome: "completed", overflow: false }))
    }).pipe(Effect.provide(LifecycleLive.layerTestWith(notesWithSnapshot(emptySnapshot))))
  })
})
