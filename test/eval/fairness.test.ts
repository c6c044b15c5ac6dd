import { assert, describe, it } from "@effect/vitest"
import { type Message, normalizeContext, type ToolCall, type TranscriptContext } from "@earendil-works/pi-ai"
import { parseArgs } from "../../eval/harness/args.ts"
import { priceOf } from "../../eval/harness/metrics.ts"
import { runPool } from "../../eval/harness/pool.ts"
import { costOf, moneyPerSolved } from "../../eval/harness/report.ts"
import { armSettings } from "../../eval/harness/session.ts"
import { bestSetting, settingFigures } from "../../eval/harness/sweep.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { maskOldResults } from "../../eval/masking/extension.ts"
import { checkpointNote, scriptedAgent } from "../../eval/scripted/agent.ts"
import { scriptedStream } from "../../eval/scripted/provider.ts"
import { applyEdits, defaultStandIn, editsBetween, lossyFacts, parseStandIn, standInName } from "../../eval/scripted/standIn.ts"
import { jobsFor } from "../../eval/run.ts"
import { logClue } from "../../eval/tasks/log-clue/task.ts"
import type { ScriptedSolver } from "../../eval/tasks/taskTypes.ts"
import { tempDir } from "../support/tempDirs.ts"

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 })
const context = (...messages: ReadonlyArray<Message>): TranscriptContext => normalizeContext({ systemPrompt: "You are Pi.", messages: [...messages] })
let ids = 0
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
const call = (name: string, args: Record<string, unknown>, text = ""): Message =>
  ({ role: "assistant", content: [...(text === "" ? [] : [{ type: "text", text }]), { type: "toolCall", id: `f${++ids}`, name, arguments: args }], stopReason: "toolUse", usage, api: "x", provider: "x", model: "x", timestamp: 0 }) as unknown as Message
const result = (name: string, text: string, isError = false): Message =>
  ({ role: "toolResult", toolCallId: `f${ids}`, toolName: name, content: [{ type: "text", text }], isError, timestamp: 0 }) as unknown as Message
const callsOf = (reply: { content: ReadonlyArray<{ type: string }> }) => reply.content.filter((part): part is ToolCall => part.type === "toolCall")
const textOf = (reply: { content: ReadonlyArray<{ type: string; text?: string }> }) => reply.content.map((part) => (part.type === "text" ? part.text ?? "" : "")).join("")

describe("the editing stand-in", () => {
  const before = ["// a.js", "import { a } from './x.js'", "", "export function one() {", "  return a(1)", "}", "", "export function two() {", "  return a(2)", "}", ""].join("\n")
  const after = before.replaceAll("a(", "b(").replace("import { a }", "import { b }")

  it("turns a whole-file change into edits that each match the file once and make the same file", () => {
    const edits = editsBetween(before, after)!
    assert.isAbove(edits.length, 0)
    for (const edit of edits) {
      assert.notStrictEqual(edit.oldText, "")
      assert.strictEqual(before.split(edit.oldText).length - 1, 1, edit.oldText)
    }
    assert.strictEqual(applyEdits(before, edits), after)
    // Repeated lines get the context that makes them unique.
    const repeated = "x\ny\nx\ny\n"
    const changed = editsBetween(repeated, "x\ny\nx\nz\n")!
    assert.strictEqual(applyEdits(repeated, changed), "x\ny\nx\nz\n")
    assert.isUndefined(editsBetween(before, before))
  })

  it("edits a file it has read, reads one it knows exists before changing it, and writes only a new file", () => {
    // A solver that always wants notes.md to read "new": the stand-in decides how to make that change.
    const solver: ScriptedSolver = { learn: () => {}, next: () => ({ kind: "call", steps: ["write:notes.md"], calls: [{ name: "write", args: { path: "notes.md", content: "new\n" } }] }) }
    const agent = scriptedAgent(solver)
    // Nothing shows notes.md exists: it is a new file, written whole.
    assert.deepStrictEqual(callsOf(agent(context(user("go")))).map((part) => [part.name, part.arguments]), [["write", { path: "notes.md", content: "new\n" }]])
    // Read whole: an edit of what differs.
    const read = [user("go"), call("read", { path: "notes.md" }), result("read", "old\n")]
    assert.deepStrictEqual(callsOf(agent(context(...read))).map((part) => [part.name, part.arguments]), [["edit", { path: "notes.md", edits: [{ oldText: "old\n", newText: "new\n" }] }]])
    // The write variant rewrites it whole, as the stand-in did before.
    assert.strictEqual(callsOf(scriptedAgent(solver, { ...defaultStandIn, changes: "write" })(context(...read)))[0]?.name, "write")
    // Named by a boot's digest (a window that is gone wrote it): read before it is changed.
    const boot = user("## Context window\nCurrent window: w2\nFiles this session changed:\n- notes.md (written)\n")
    assert.deepStrictEqual(callsOf(agent(context(boot, user("go")))).map((part) => [part.name, part.arguments]), [["read", { path: "notes.md" }]])
    // A read that failed (no such file): written whole.
    assert.strictEqual(callsOf(agent(context(boot, user("go"), call("read", { path: "notes.md" }), result("read", "ENOENT: notes.md", true))))[0]?.name, "write")
  })
})

describe("the masking arms", () => {
  const turn = (index: number) => [
    { role: "assistant", content: [] },
    { role: "toolResult", toolName: "read", content: [{ type: "text", text: `result ${index} `.repeat(50) }] }
  ]
  const conversation = (turns: number) => [{ role: "user", content: "go" }, ...Array.from({ length: turns }, (_, index) => turn(index)).flat()]
  const masked = (messages: ReadonlyArray<{ content: unknown }>) => messages.map((message) => JSON.stringify(message.content)).filter((text) => text.includes("omitted")).length

  it("move the mask boundary in steps of K turns: between steps each request extends the one before, so its prefix stays cacheable", () => {
    const requests = [10, 11, 12, 13, 14, 15].map((turns) => maskOldResults(conversation(turns), 3, Number.POSITIVE_INFINITY, 5))
    for (let index = 1; index < 5; index++) {
      const previous = JSON.stringify(requests[index - 1])
      assert.isTrue(JSON.stringify(requests[index]).startsWith(previous.slice(0, -1)), `request ${index} extends the one before`)
    }
    assert.strictEqual(masked(requests[0]!), 7)
    assert.strictEqual(masked(requests[4]!), 7)
    // At the next step the boundary moves five turns at once.
    assert.strictEqual(masked(requests[5]!), 12)
    // A boundary moving every turn rewrites the middle of every request.
    const everyTurn = [10, 11].map((turns) => maskOldResults(conversation(turns), 3))
    assert.isFalse(JSON.stringify(everyTurn[1]).startsWith(JSON.stringify(everyTurn[0]).slice(0, -1)))
  })

  it("hybrid keeps Pi's compaction on as the fallback, masking alone has it off; both write their mask setting", () => {
    const [masking, hybrid] = jobsFor(parseArgs(["--arms", "masking,hybrid", "--tasks", "mid-question", "--seeds", "1", "--mask", "10,5", "--out", tempDir("pi-context-eval-out-")]), process.cwd())
    assert.deepInclude(armSettings(masking!), { masking: { keepTurns: 10, step: 5 } })
    assert.isFalse((armSettings(masking!).compaction as { enabled: boolean }).enabled)
    assert.isTrue((armSettings(hybrid!).compaction as { enabled: boolean }).enabled)
  })

  it("hybrid finishes the run where masking alone overflows the window: the compaction fallback turns it over", { timeout: 150_000 }, async () => {
    const specs = jobsFor(parseArgs(["--arms", "masking,hybrid", "--tasks", "mid-question", "--seeds", "1", "--mask", "10,5", "--out", tempDir("pi-context-eval-out-")]), process.cwd())
    const results = await runPool(specs, { jobs: 2, maxUsd: undefined })
    const [masking, hybrid] = ["masking", "hybrid"].map((arm) => results.find((run) => run.arm === arm)!)
    assert.strictEqual(masking!.failure?.kind, "context-overflow")
    assert.isUndefined(hybrid!.failure, JSON.stringify(hybrid!.failure))
    assert.isTrue(hybrid!.success)
    assert.isAbove(hybrid!.turnovers.compactions, 0)
  })
})

describe("cost in money", () => {
  const sonnet = { name: "anthropic/claude-sonnet-4-6", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }
  const run = (overrides: Partial<RunResult>): RunResult => ({ arm: "compaction", task: "t", seed: 1, scripted: true, success: true, costUsd: 0, tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, ...overrides }) as RunResult

  it("prices cache reads, cache writes, uncached input and output each at the model's own rate", () => {
    const tokens = { input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 }
    assert.closeTo(priceOf(tokens, sonnet), 3 + 15 + 0.3 + 3.75, 1e-9)
    // A cache read costs a tenth of a write: tokens are not money.
    const reads = run({ tokens: { input: 0, output: 0, cacheRead: 1_000_000, cacheWrite: 0 } })
    const writes = run({ tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 1_000_000 } })
    assert.closeTo(costOf(reads, sonnet), 0.3, 1e-9)
    assert.closeTo(costOf(writes, sonnet), 3.75, 1e-9)
    // A real model's runs keep the cost Pi priced them at.
    assert.strictEqual(costOf(run({ scripted: false, costUsd: 1.5, tokens: tokens }), sonnet), 1.5)
    // Per solved task: every run's money over the runs solved.
    assert.closeTo(moneyPerSolved([reads, { ...writes, success: false }], sonnet)!, 4.05, 1e-9)
  })

  it("the scripted provider bills the prefix its previous request shares as cache reads and the rest as cache writes", async () => {
    const stream = scriptedStream({ contextWindow: 100_000, reply: () => ({ content: [{ type: "text", text: "ok" }], stopReason: "stop" }) })
    const model = { api: "x", provider: "x", id: "x" } as never
    const first = context(user("a".repeat(4_000)))
    const second = context(user("a".repeat(4_000)), user("b".repeat(400)))
    const one = await stream(model, first, { sessionId: "s" } as never).result()
    const two = await stream(model, second, { sessionId: "s" } as never).result()
    assert.strictEqual(one.usage.cacheRead, 0)
    assert.isAbove(one.usage.cacheWrite, 1_000)
    assert.strictEqual(one.usage.input, 0)
    assert.isAtLeast(two.usage.cacheRead, 1_000)
    assert.isBelow(two.usage.cacheWrite, 120)
  })
})

describe("the stand-in's variants, applied to every arm alike", () => {
  it("parse from --stand-in and name themselves", () => {
    assert.deepStrictEqual(parseStandIn("write,silent,loss=0.3"), { changes: "write", restates: false, loss: 0.3 })
    assert.strictEqual(standInName(parseStandIn("loss=0.1")), "loss=0.1")
    assert.strictEqual(standInName(defaultStandIn), "default")
    assert.throws(() => parseStandIn("loss=2"), /loss=P/)
    assert.deepStrictEqual(parseArgs(["--stand-in", "silent"]).standIn, { ...defaultStandIn, restates: false })
  })

  it("silent never restates what a result taught it; restating does", () => {
    const opening = logClue.messages(1)[0]!.text
    const request = context(user(opening), call("read", { path: "logs/nightly.log", offset: 1, limit: 200 }, "Step: page:1."), result("read", "2026 WARN  config   \"pool_size\" = \"4x\" is not a number; using 0"))
    assert.include(textOf(scriptedAgent(logClue.solver)(request)), "Learned:")
    assert.notInclude(textOf(scriptedAgent(logClue.solver, { ...defaultStandIn, restates: false })(request)), "Learned:")
  })

  it("a lossy stand-in loses one fact with chance p from what it writes, the same draw for the same text", () => {
    const facts = new Map([["a", "1"], ["b", "2"], ["c", "3"]])
    assert.strictEqual(lossyFacts(facts, 0, "x").size, 3)
    assert.strictEqual(lossyFacts(facts, 1, "x").size, 2)
    assert.deepStrictEqual([...lossyFacts(facts, 1, "x")], [...lossyFacts(facts, 1, "x")])
    // At p = 0.3, about three draws in ten lose a fact.
    const lost = Array.from({ length: 400 }, (_, index) => lossyFacts(facts, 0.3, `draw ${index}`).size < 3).filter(Boolean).length
    assert.isAbove(lost, 80)
    assert.isBelow(lost, 160)
    const knowledge = { facts, done: new Set(["x"]), results: [], tools: [] }
    assert.lengthOf(checkpointNote(knowledge, 1).split("\n").filter((line) => line.startsWith("- fact ")), 2)
  })

  it("the sweep picks an arm's best setting by runs solved, then money per solved task", () => {
    const sonnet = { name: "s", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }
    const runAt = (keepTurns: number, seed: number, success: boolean, cacheWrite: number) =>
      ({ arm: "masking", task: "t", seed, window: 32_000, scripted: true, success, costUsd: 0, failure: undefined, probes: [], turnovers: { total: 0 },
        settings: { masking: { keepTurns, step: 5 } }, standIn: defaultStandIn, tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite } }) as unknown as RunResult
    const figures = settingFigures([
      { name: "n5", results: [runAt(5, 1, true, 1_000_000), runAt(5, 2, true, 1_000_000)] },
      { name: "n10", results: [runAt(10, 1, true, 2_000_000), runAt(10, 2, true, 2_000_000)] },
      { name: "n20", results: [runAt(20, 1, true, 100), runAt(20, 2, false, 100)] }
    ], sonnet)
    assert.strictEqual(bestSetting(figures, "masking")?.setting, "last 5 turns, steps of 5")
  })
})
