import { readFileSync, writeFileSync } from "node:fs"
import { Notices } from "../../src/kernel/Notices.ts"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import * as NoticesLive from "../../src/kernel/NoticesLive.ts"
import { layer as traceLayer, layerWith, tracePath } from "../../src/trace/TraceLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { describeTrace, Trace } from "../../src/trace/Trace.ts"
import { Window } from "../../src/window/Window.ts"
import { makeFakeSession, messageEntry } from "../support/FakePiSession.ts"
import { tempDir } from "../support/tempDirs.ts"

const agentDir = () => tempDir("pi-context-trace-")

const readLines = (dir: string, sessionId: string) =>
  readFileSync(tracePath(dir, sessionId), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))

describe("Trace", () => {
  it.effect("writes one JSON object per traced event, with session, window, event and fields", () =>
    Effect.gen(function*() {
      const dir = agentDir()
      const trace = yield* Trace
      yield* trace.open({ sessionId: "s-1", agentDir: dir, level: "info" })
      yield* Window.use((window) => window.follow("session-start")).pipe(Effect.provide(makeFakeSession({ sessionId: "s-1" }).layer))
      yield* trace.info("boundary.commit", { from: "a", to: "b" })
      yield* trace.debug("agent.settled", { aborted: false })
      yield* trace.info("compaction.guard", { verdict: "Block" })
      yield* Effect.logInfo("an unrelated log line never reaches the trace")
      const lines = readFileSync(tracePath(dir, "s-1"), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
      assert.strictEqual(lines.length, 2)
      assert.deepStrictEqual(
        lines.map((line) => [line.event, line.sessionId, line.windowId, line.level]),
        [["boundary.commit", "s-1", rootWindowId("s-1"), "info"], ["compaction.guard", "s-1", rootWindowId("s-1"), "info"]]
      )
      assert.strictEqual(lines[0].from, "a")
      assert.isString(lines[0].ts)
      assert.deepStrictEqual(yield* trace.status, { _tag: "Writing", path: tracePath(dir, "s-1") })
    }).pipe(Effect.provide(Layer.merge(traceLayer, WindowLive.layer))))

  it.effect("follows the Window room: the lines after a reset carry the window it opened", () =>
    Effect.gen(function*() {
      const dir = agentDir()
      const fake = makeFakeSession({ sessionId: "s-follow", entries: [messageEntry("user", "hi")] })
      const trace = yield* Trace
      yield* trace.open({ sessionId: "s-follow", agentDir: dir, level: "info" })
      yield* Effect.gen(function*() {
        const window = yield* Window
        yield* window.follow("session-start")
        yield* trace.info("before.reset")
        const from = yield* window.current
        const to = yield* window.nextWindow(from)
        yield* window.reset({ from, to, source: "tool" })
        yield* trace.info("after.reset")
        const lines = readLines(dir, "s-follow")
        assert.deepStrictEqual(lines.map((line) => [line.event, line.windowId, line.window]), [
          ["before.reset", rootWindowId("s-follow"), "w1"],
          ["after.reset", to.id, "w2"]
        ])
      }).pipe(Effect.provide(fake.layer))
    }).pipe(Effect.provide(Layer.merge(traceLayer, WindowLive.layer))))

  it.effect("records debug lines only at traceLevel debug, and nothing at off", () =>
    Effect.gen(function*() {
      const dir = agentDir()
      const trace = yield* Trace
      yield* trace.open({ sessionId: "s-debug", agentDir: dir, level: "debug" })
      yield* trace.debug("agent.settled", { aborted: true })
      yield* trace.open({ sessionId: "s-off", agentDir: dir, level: "off" })
      yield* trace.info("boundary.commit", {})
      const debugLines = readFileSync(tracePath(dir, "s-debug"), "utf8").trimEnd().split("\n")
      assert.strictEqual(debugLines.length, 1)
      assert.strictEqual(JSON.parse(debugLines[0]!).event, "agent.settled")
      assert.deepStrictEqual(yield* trace.status, { _tag: "Off" })
    }).pipe(Effect.provide(traceLayer)))

  it.effect("a write failure never fails the caller: the trace turns off and reports once", () =>
    Effect.gen(function*() {
      const dir = agentDir()
      // A file where the traces directory should be makes every append fail (ENOTDIR).
      writeFileSync(join(dir, "pi-context"), "not a directory")
      const trace = yield* Trace
      yield* trace.open({ sessionId: "s-2", agentDir: dir, level: "info" })
      yield* trace.info("first", {})
      yield* trace.info("second", {})
      const failure = yield* Notices.use((notices) => notices.takeAll)
      assert.strictEqual(failure.length, 1)
      assert.include(failure[0], "trace disabled")
      yield* trace.info("third", {})
      assert.deepStrictEqual(yield* Notices.use((notices) => notices.takeAll), [])
    }).pipe(Effect.provide(Layer.merge(traceLayer, NoticesLive.layer))))

  it.effect("after a write failure the status says why tracing is off, and no longer names a file being written", () =>
    Effect.gen(function*() {
      const dir = agentDir()
      writeFileSync(join(dir, "pi-context"), "not a directory")
      const trace = yield* Trace
      yield* trace.open({ sessionId: "s-4", agentDir: dir, level: "info" })
      assert.strictEqual(describeTrace(yield* trace.status), `trace: ${tracePath(dir, "s-4")}`)
      yield* trace.info("first", {})
      const status = yield* trace.status
      assert.strictEqual(status._tag, "Failed")
      assert.strictEqual(describeTrace(status), `trace off: cannot write ${tracePath(dir, "s-4")} (ENOTDIR); make its folder writable, or set pi-context.traceLevel to "off"`)
      // The notice names the problem, not the user's paths.
      const [notice] = yield* Notices.use((notices) => notices.takeAll)
      assert.include(notice, "(ENOTDIR)")
      assert.notInclude(notice, dir)
      yield* trace.open({ sessionId: "s-5", agentDir: dir, level: "off" })
      assert.strictEqual(describeTrace(yield* trace.status), "trace: off (pi-context.traceLevel)")
    }).pipe(Effect.provide(Layer.merge(traceLayer, NoticesLive.layer))))

  it.effect("stops calling a failing sink after the first failure", () =>
    Effect.gen(function*() {
      let calls = 0
      const failing = layerWith(() => {
        calls++
        throw new Error("EIO")
      })
      yield* Effect.gen(function*() {
        const trace = yield* Trace
        yield* trace.open({ sessionId: "s-3", agentDir: "/nowhere", level: "info" })
        yield* trace.info("one", {})
        yield* trace.info("two", {})
      }).pipe(Effect.provide(failing.pipe(Layer.provide(NoticesLive.layer))))
      assert.strictEqual(calls, 1)
    }))
})
