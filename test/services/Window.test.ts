import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { continuationText, resetDrafts } from "../../src/reset/boundary.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import type { PiSession } from "../../src/kernel/PiSession.ts"
import { type CurrentWindow, Window } from "../../src/window/Window.ts"
import { piView } from "../../src/window/piContext.ts"
import { carriesSystemPrompt, nextRequestTokens } from "../../src/window/contextMessages.ts"
import { type FakeSession, makeFakeSession, messageEntry } from "../support/FakePiSession.ts"

const sessionId = "0123abcd-0000-7000-8000-0000000000aa"
const model = { provider: "faux", id: "faux-1", contextWindow: 100_000 }

/** Appends a reset boundary the way Pi commits the lifecycle's drafts: the marker, boot and continuation. */
const appendBoundary = (fake: FakeSession, windowId: string) => {
  for (const draft of resetDrafts(windowId, "command", "boot text")) {
    if (draft.type === "custom") fake.append({ ...draft, id: `m-${windowId}`, timestamp: new Date(5_000).toISOString() })
    if (draft.type === "custom_message") fake.append({ ...draft, id: `${draft.customType}-${windowId}`, timestamp: new Date(6_000).toISOString() })
  }
}

const withWindow = <A>(fake: FakeSession, f: (window: Window["Service"]) => Effect.Effect<A, never, PiSession>) =>
  Window.use(f).pipe(Effect.provide(fake.layer), Effect.provide(WindowLive.layer))

describe("Window", () => {
  it.effect("follows the current window across a reset: id, w-number, start and tail from its marker", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, model, entries: [messageEntry("user", "hi"), messageEntry("assistant", "hello")] })
      yield* Effect.gen(function*() {
        const window = yield* Window
        const root = yield* window.current
        assert.deepStrictEqual([root.id, root.ordinal, root.isRoot, root.tail.length], [rootWindowId(sessionId), 1, true, 2])
        appendBoundary(fake, "pcx:second")
        const next = yield* window.current
        assert.deepStrictEqual([next.id, next.ordinal, next.isRoot, next.startedAt], ["pcx:second", 2, false, 5_000])
        assert.strictEqual(next.tail[0]!._tag, "Marker")
        const facts = yield* window.windows
        assert.deepStrictEqual(facts.map((w) => [w.ordinal, w.end._tag === "Reset" ? w.end.source : "open"]), [[1, "command"], [2, "open"]])
      }).pipe(Effect.provide(fake.layer), Effect.provide(WindowLive.layer))
    }))

  it.effect("after a reset, until the window's first reply, usage is its next request estimated from the branch, whatever Pi still reports", () =>
    Effect.gen(function*() {
      const system = messageEntry("system", "s".repeat(400))
      const fake = makeFakeSession({ sessionId, model, entries: [system, messageEntry("user", "hi"), messageEntry("assistant", "hello")] })
      fake.usage = { tokens: 60_000, contextWindow: 100_000 }
      assert.deepStrictEqual(yield* withWindow(fake, (window) => window.usage), { tokens: 60_000, contextWindow: 100_000 })
      appendBoundary(fake, "pcx:second")
      // The system prompt before the marker, the boot and the continuation: what the next request sends, by Pi's chars/4.
      const sent = 100 + Math.ceil("boot text".length / 4) + Math.ceil(continuationText.length / 4)
      assert.deepStrictEqual(yield* withWindow(fake, (window) => window.usage), { tokens: sent, contextWindow: 100_000, estimated: true })
      fake.append({ ...messageEntry("assistant", "fresh"), id: "r1", timestamp: new Date(7_000).toISOString() })
      assert.deepStrictEqual(yield* withWindow(fake, (window) => window.usage), { tokens: 60_000, contextWindow: 100_000 })
    }))

  it.effect("the estimate before a reset window's first reply is the one Pi's view of the whole branch gives, with its system prompts in any window and after a compaction", () =>
    Effect.gen(function*() {
      /** The estimate from Pi's view of the whole branch, as it was worked out before the ended windows' prompts were kept. */
      const fromWholeBranch = (fake: FakeSession, window: CurrentWindow) => {
        const own = new Set(window.entries.map((entry) => entry.id))
        const systems = piView(fake.branch()).filter((entry) => carriesSystemPrompt(entry) && !own.has(entry.id))
        return nextRequestTokens([...systems, ...window.entries], window)
      }
      const system = (text: string) => messageEntry("system", text)
      for (const compacted of [false, true]) {
        const fake = makeFakeSession({ sessionId, model, entries: [system("s".repeat(400)), messageEntry("user", "hi"), messageEntry("assistant", "hello")] })
        yield* Effect.gen(function*() {
          const window = yield* Window
          const estimates: Array<readonly [number | null, number | undefined]> = []
          for (const [index, windowId] of ["pcx:second", "pcx:third", "pcx:fourth"].entries()) {
            appendBoundary(fake, windowId)
            if (compacted && index === 1) fake.compaction("summary")
            fake.append({ ...system(`${"t".repeat(80 * (index + 1))}`), timestamp: new Date(6_500).toISOString() })
            const current = yield* window.current
            yield* window.forget
            estimates.push([(yield* window.usage)!.tokens, fromWholeBranch(fake, current)])
            // Asked again, with the ended windows' prompts read before: the same.
            yield* window.forget
            estimates.push([(yield* window.usage)!.tokens, fromWholeBranch(fake, current)])
          }
          for (const [tokens, expected] of estimates) assert.strictEqual(tokens, expected)
          assert.isTrue(estimates.every(([tokens]) => typeof tokens === "number" && tokens > 0))
          // The system prompts of every earlier window count: each window's estimate grows by its predecessor's prompt.
          if (!compacted) assert.isTrue(estimates[4]![0]! > estimates[2]![0]! && estimates[2]![0]! > estimates[0]![0]!)
        }).pipe(Effect.provide(fake.layer), Effect.provide(WindowLive.layer))
      }
    }))

  it.effect("a measured request or reply is the window's usage until the window changes", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, model, entries: [messageEntry("user", "hi")] })
      fake.usage = { tokens: 10, contextWindow: 100_000 }
      yield* Effect.gen(function*() {
        const window = yield* Window
        yield* window.rememberReply(yield* window.current, 42_000)
        assert.deepStrictEqual(yield* window.usage, { tokens: 42_000, contextWindow: 100_000 })
        yield* window.forget
        assert.deepStrictEqual(yield* window.usage, { tokens: 10, contextWindow: 100_000, estimated: true })
      }).pipe(Effect.provide(fake.layer), Effect.provide(WindowLive.layer))
    }))

  it.effect("a marker that does not decode opens no window: current, windows and spans all stay in the window it sits in", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, model, entries: [messageEntry("user", "hi"), messageEntry("assistant", "hello")] })
      appendBoundary(fake, "pcx:second")
      fake.append({ ...messageEntry("user", "go on"), id: "u2", timestamp: new Date(7_000).toISOString() })
      const malformed = fake.append({ type: "custom", customType: "pi-context/reset-marker", data: { windowId: "two words" } })
      fake.append({ ...messageEntry("assistant", "after"), id: "r2", timestamp: new Date(8_000).toISOString() })
      yield* Effect.gen(function*() {
        const window = yield* Window
        const current = yield* window.current
        const facts = yield* window.windows
        const spans = yield* window.spans
        assert.deepStrictEqual([current.id, current.ordinal], ["pcx:second", 2])
        assert.deepStrictEqual(facts.map((w) => [w.id, w.ordinal, w.end._tag]), [[rootWindowId(sessionId), 1, "Reset"], ["pcx:second", 2, "Open"]])
        assert.deepStrictEqual(spans.map((w) => w.id), facts.map((w) => w.id))
        // The malformed marker is an unreadable entry of w2, in the same place for every reader.
        assert.deepStrictEqual(current.entries.map((e) => e.id), spans[1]!.entries.map((e) => e.id))
        assert.include(current.entries.map((e) => e.id), malformed.id)
        assert.strictEqual(current.tail.find((e) => e.id === malformed.id)?._tag, "Foreign")
      }).pipe(Effect.provide(fake.layer), Effect.provide(WindowLive.layer))
    }))

  it.effect("a reset is heard by every subscriber before it returns, in order, once: the ending window, then the one it minted", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, model, entries: [messageEntry("user", "hi"), messageEntry("assistant", "hello")] })
      yield* Effect.gen(function*() {
        const window = yield* Window
        const heard: Array<Array<string>> = [[], []]
        for (const log of heard) {
          yield* window.subscribe((event) =>
            Effect.sync(() => log.push(`${event._tag} w${event.ordinal} ${event.id} ${event.reason}${event._tag === "WindowEnded" ? ` turns=${event.facts.turns}` : ""}`))
          )
        }
        yield* window.follow("session-start")
        const from = yield* window.current
        const to = yield* window.nextWindow(from)
        assert.isTrue(to.id.startsWith(`pcx:${sessionId.replace(/-/g, "").slice(-12)}:`))
        assert.strictEqual(to.ordinal, 2)
        yield* window.reset({ from, to, source: "tool" })
        const expected = [
          `WindowOpened w1 ${from.id} session-start`,
          `WindowEnded w1 ${from.id} tool turns=1`,
          `WindowOpened w2 ${to.id} tool`
        ]
        assert.deepStrictEqual(heard, [expected, expected])
        appendBoundary(fake, to.id)
        yield* window.sessionEnding
        assert.deepStrictEqual(heard[0]!.slice(3), [`WindowEnded w2 ${to.id} session-end turns=0`])
        assert.deepStrictEqual([(yield* window.current).id, (yield* window.current).ordinal], [to.id, 2])
      }).pipe(Effect.provide(fake.layer), Effect.scoped, Effect.provide(WindowLive.layer))
    }))

  it.effect("answers whether pi-context is on: the setting until /pi-context on|off says, and what it said, however many entries follow", () =>
    Effect.gen(function*() {
      const fake = makeFakeSession({ sessionId, model, settings: { "pi-context": { enabled: false } }, entries: [messageEntry("user", "hi")] })
      yield* Effect.gen(function*() {
        const window = yield* Window
        assert.isFalse(yield* window.enabled)
        fake.append({ type: "custom", customType: "pi-context/state", data: { enabled: true } })
        assert.isTrue(yield* window.enabled)
        // Entries appended after it, and a reset, leave what was set.
        fake.append(messageEntry("user", "more"))
        appendBoundary(fake, "pcx:after-on")
        assert.isTrue(yield* window.enabled)
        fake.append({ type: "custom", customType: "pi-context/state", data: { enabled: false } })
        fake.append(messageEntry("assistant", "ok"))
        assert.isFalse(yield* window.enabled)
        // Another branch without the entry: the setting decides again.
        fake.moveTo(fake.branch()[0]!.id)
        assert.isFalse(yield* window.enabled)
      }).pipe(Effect.provide(fake.layer), Effect.provide(WindowLive.layer))
    }))
})
