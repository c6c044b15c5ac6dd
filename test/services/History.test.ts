import { assert, layer } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { CustomType } from "../../src/kernel/protocol.ts"
import { ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import type { ToolOutcome } from "../../src/kernel/toolOutcome.ts"
import { utf8Length } from "../../src/kernel/toolOutcome.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import { Layer } from "effect"
import * as HistoryLive from "../../src/history/HistoryLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { eventCount, type SessionIndex } from "../../src/history/sessionIndex.ts"
import { PiSession } from "../../src/kernel/PiSession.ts"
import { historyToolHandlers } from "../../src/history/historyHandlers.ts"
import { type FakeSession, makeFakeSession, messageEntry } from "../support/FakePiSession.ts"
import { noNotesVersions } from "../support/notesVersionsFixtures.ts"

/** The indexes the History keeps, read by the tests as evidence that calls stay incremental. */
const indexes: HistoryLive.SessionIndexes = Ref.makeUnsafe<ReadonlyMap<string, SessionIndex>>(new Map())

/** No notes history in these tests: history_windows shows the branch's own facts. */
const historyAndWindow = Layer.mergeAll(HistoryLive.layerOver(indexes).pipe(Layer.provide(WindowLive.layer)), WindowLive.layer, noNotesVersions)

const sessionId = "5e55a0b1-0000-7000-8000-000000000000"

/** How much work the index of the test's session has done. */
const stats = Effect.map(Ref.get(indexes), (all) => {
  const index = all.get(sessionId)!
  return { entries: index.entryAt.length, events: eventCount(index), documentBuilds: index.documentBuilds, branchRebuilds: index.branchRebuilds }
})

const marker = (windowId: string) => ({ type: "custom", customType: CustomType.resetMarker, data: { windowId } })
const boot = (windowId: string) => ({
  type: "custom_message",
  customType: CustomType.boot,
  content: "boot",
  display: false,
  details: { windowId }
})

/** Each tool call gets its own PiSession value, as each Pi tool call does. */
const call = (fake: FakeSession, tool: keyof typeof historyToolHandlers, params: unknown) =>
  historyToolHandlers[tool](params).pipe(Effect.provide(fake.layer))

const text = (outcome: ToolOutcome): string => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

const appendUsers = (fake: FakeSession, count: number, word: string) => {
  for (let n = 0; n < count; n++) {
    const fields = messageEntry("user", `${word} ${n}`)
    fake.append({ ...fields, id: `${word}-${n}`, timestamp: new Date(n * 1000).toISOString() })
  }
}

layer(historyAndWindow)("History", (it) => {
  it.effect("extends its index with only the entries appended since the last call, building only the documents a call reads", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId })
      appendUsers(fake, 500, "early")
      const listed = yield* call(fake, "history_list", {})
      const rows = (listed as { details: { rows: ReadonlyArray<unknown> } }).details.rows.length
      // The page's rows are read; the other 480-odd events are indexed, never rendered.
      assert.deepInclude(yield* stats, { entries: 500, events: 500, documentBuilds: rows, branchRebuilds: 0 })
      assert.isBelow(rows, 100)

      for (let round = 1; round <= 3; round++) {
        appendUsers(fake, 10, `round${round}`)
        yield* call(fake, "history_search", { query: `round${round} 9` })
        // The search scans every event but the newest prompt (the current turn's): each document once, over all rounds.
        assert.deepInclude(yield* stats, { entries: 500 + 10 * round, events: 500 + 10 * round, documentBuilds: 500 + 10 * round - 1, branchRebuilds: 0 })
      }
      // A call with nothing appended does no document work at all.
      yield* call(fake, "history_read", { seq: 1 })
      assert.strictEqual((yield* stats).documentBuilds, 529)
    }))

  it.effect("reads the branch's windows from the Window room: the first history_windows finds the branch among the entries, later ones walk only what was appended", () =>
    Effect.gen(function*() {
      // A session of its own: the layer, shared by these tests, caches windows by session.
      const fake = makeFakeSession({ sessionId: "5e55a0b1-0000-7000-8000-0000000000aa" })
      appendUsers(fake, 300, "early")
      let walked = 0
      const count = <A>(entries: ReadonlyArray<A>): ReadonlyArray<A> => {
        walked += entries.length
        return entries
      }
      const counting = Layer.effect(
        PiSession,
        Effect.gen(function*() {
          const session = yield* PiSession
          return PiSession.of({
            ...session,
            rawBranch: Effect.map(session.rawBranch, count),
            branch: Effect.map(session.branch, count),
            branchTail: (isStart) => Effect.map(session.branchTail(isStart), count),
            rawBranchAt: (id) => Effect.map(session.rawBranchAt(id), count)
          })
        })
      ).pipe(Layer.provide(fake.layer))
      const windows = () => historyToolHandlers.history_windows({}).pipe(Effect.provide(counting))

      assert.include(text(yield* windows()), "#1–#300 (300 events)")
      // The entries are read anyway (the index folds them): the branch is found among them, with no walk by id.
      assert.strictEqual(walked, 0)
      appendUsers(fake, 10, "later")
      assert.include(text(yield* windows()), "#1–#310 (310 events)")
      // The ten appended entries and the leaf the walk stops at.
      assert.strictEqual(walked, 11)
    }))

  it.effect("finds a word from the first window after two resets and reads that event in two pages", () =>
    Effect.gen(function*() {
      const secret = `The deploy key lives in vault path kv/ops/heliotrope. ${"Padding sentence. ".repeat(20)}`
      const fake = makeFakeSession({
        sessionId,
        entries: [
          messageEntry("user", secret),
          messageEntry("assistant", "Noted."),
          marker("pcx:5e55a0b1:aaaaaaaa"),
          boot("pcx:5e55a0b1:aaaaaaaa"),
          messageEntry("user", "second window"),
          marker("pcx:5e55a0b1:bbbbbbbb"),
          boot("pcx:5e55a0b1:bbbbbbbb"),
          messageEntry("user", "where was the key?")
        ]
      })

      const windows = text(yield* call(fake, "history_windows", {}))
      assert.include(windows, "3 window(s) on the active branch")
      assert.include(windows, `${rootWindowId(sessionId)} created`)
      assert.include(windows, "#1–#2 (2 events)")
      assert.include(windows, "pcx:5e55a0b1:bbbbbbbb")
      assert.include(windows, "[current]")

      const found = yield* call(fake, "history_search", { query: "HELIOTROPE" })
      assert.include(text(found), "| heliotrope. Padding")
      const { seq, offset } = (found as { details: { hits: Array<{ seq: number; offset: number }> } }).details.hits[0]!
      assert.strictEqual(seq, 1)

      const first = yield* call(fake, "history_read", { seq, limit: 100 })
      assert.include(text(first), "The deploy key lives in vault path kv/ops/heliotrope.")
      assert.include(text(first), "continue: history_read {\"seq\":1,\"offset\":100}")
      const second = yield* call(fake, "history_read", { seq, offset: 100 })
      assert.include(text(second), "end of event")
      assert.strictEqual(offset, secret.indexOf("heliotrope"))
    }))

  it.effect("answers every failure as a tool error with a stable code", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, entries: [messageEntry("user", "hello")] })
      const codes = {
        window: yield* call(fake, "history_list", { window_id: "pcx:nope:root" }),
        regex: yield* call(fake, "history_search", { query: "[", regex: true }),
        seq: yield* call(fake, "history_read", { seq: 42 }),
        params: yield* call(fake, "history_read", { seq: "one" })
      }
      assert.deepStrictEqual(
        Object.fromEntries(Object.entries(codes).map(([name, outcome]) => [name, outcome._tag === "Failed" ? outcome.code : "ok"])),
        { window: "unknown_window", regex: "bad_regex", seq: "not_found", params: "invalid_argument" }
      )
      assert.include(codes.window.text, "Call history_windows")
    }))

  it.effect("answers not_on_branch for an event the leaf moved away from, rebuilding only the branch view", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, entries: [messageEntry("user", "kept"), messageEntry("user", "left behind")] })
      yield* call(fake, "history_list", {})
      fake.moveTo(fake.entries[0]!.id)
      const outcome = yield* call(fake, "history_read", { seq: 2 })
      assert.strictEqual(outcome._tag === "Failed" ? outcome.code : "ok", "not_on_branch")
      assert.deepInclude(yield* stats, { documentBuilds: 2, branchRebuilds: 1 })
    }))

  it.effect("keeps every result within 32 KiB and serves concurrent calls from one consistent index", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId })
      for (let n = 0; n < 200; n++) fake.append({ ...messageEntry("user", `ключ ${n} ${"данные ".repeat(2000)}`), id: `u${n}`, timestamp: new Date(0).toISOString() })
      const outcomes = yield* Effect.all([
        call(fake, "history_list", { limit: 100 }),
        call(fake, "history_search", { query: "ключ", limit: 50 }),
        call(fake, "history_read", { seq: 7, limit: 8000 }),
        call(fake, "history_windows", {})
      ], { concurrency: "unbounded" })
      for (const outcome of outcomes) assert.isAtMost(utf8Length(text(outcome)), ToolResultByteLimit)
      const built = yield* stats
      // One index for the four calls: each event's document built once at most, whichever call read it first.
      assert.deepInclude(built, { entries: 200, events: 200, branchRebuilds: 0 })
      assert.isAtMost(built.documentBuilds, 200)
    }))
})
