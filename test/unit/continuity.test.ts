import { assert, describe, it } from "@effect/vitest"
import { checkWipe, windowActivity } from "../../src/domain/checkpoint.ts"
import { checkDigestTokens, DigestTokenRange } from "../../src/domain/digestBudget.ts"
import type { RawEntry } from "../../src/domain/entries.ts"
import { pendingRequest } from "../../src/domain/pending.ts"
import { resolvePolicy } from "../../src/domain/thresholds.ts"

let n = 0
const raw = (message: unknown): RawEntry => ({ type: "message", id: `e${++n}`, parentId: null, timestamp: "", message })
const user = (text: string) => raw({ role: "user", content: [{ type: "text", text }] })
const reply = (text: string, stopReason = "stop") => raw({ role: "assistant", content: [{ type: "text", text }], stopReason })
const toolCall = () => raw({ role: "assistant", content: [{ type: "toolCall", id: "c", name: "bash", arguments: {} }], stopReason: "toolUse" })
const result = (toolName: string, isError = false) => raw({ role: "toolResult", toolName, toolCallId: "c", content: [], isError })

describe("the pending request", () => {
  it("is the user's latest message while no finished text reply follows it", () => {
    assert.strictEqual(pendingRequest([user("first"), reply("done"), user("what next?")]), "what next?")
    assert.strictEqual(pendingRequest([user("what next?"), toolCall(), result("bash")]), "what next?")
    assert.strictEqual(pendingRequest([user("what next?"), reply("half", "aborted")]), "what next?")
    assert.strictEqual(pendingRequest([user("what next?"), reply("", "stop")]), "what next?")
  })

  it("is absent once answered, or when the window has no user message", () => {
    assert.isUndefined(pendingRequest([user("what next?"), toolCall(), result("bash"), reply("step 3")]))
    assert.isUndefined(pendingRequest([reply("hello")]))
    assert.isUndefined(pendingRequest([]))
    assert.isUndefined(pendingRequest([user("   ")]))
  })
})

describe("the checkpoint check", () => {
  it("counts only successful notes_write / notes_update results as a checkpoint", () => {
    assert.deepStrictEqual(windowActivity([result("notes_write")]), { checkpointed: true, wipeCalls: 0 })
    assert.deepStrictEqual(windowActivity([result("notes_update")]), { checkpointed: true, wipeCalls: 0 })
    assert.deepStrictEqual(windowActivity([result("notes_write", true), result("notes_read")]), { checkpointed: false, wipeCalls: 0 })
    assert.deepStrictEqual(windowActivity([result("wipe_memory"), result("wipe_memory")]), { checkpointed: false, wipeCalls: 2 })
  })

  it("refuses only a window's first wipe_memory without a note, and only while the check is on", () => {
    const refuse = (checkpointed: boolean, wipeCalls: number, checkEnabled = true) =>
      checkWipe({ checkEnabled, activity: { checkpointed, wipeCalls } })._tag
    assert.strictEqual(refuse(false, 0), "Refuse")
    assert.strictEqual(refuse(true, 0), "Allow")
    assert.strictEqual(refuse(false, 1), "Allow")
    assert.strictEqual(refuse(false, 0, false), "Allow")
  })
})

describe("continuity settings", () => {
  const policy = (settings: Record<string, unknown>) => resolvePolicy([{ source: "global", settings: { "pi-context": settings } }], undefined)

  it("checkpointCheck defaults to true and is validated like the other booleans", () => {
    assert.strictEqual(policy({}).checkpointCheck.value, true)
    assert.strictEqual(policy({ checkpointCheck: false }).checkpointCheck.value, false)
    const bad = policy({ checkpointCheck: "no" })
    assert.strictEqual(bad.checkpointCheck.value, true)
    assert.deepInclude(bad.notices[0]!, { key: "pi-context.checkpointCheck", value: "no", used: true })
  })

  it("digestTokens defaults to 1,500 and is clamped to its range with one notice", () => {
    assert.strictEqual(policy({}).digestTokens.value, 1_500)
    assert.strictEqual(policy({ digestTokens: 900 }).digestTokens.value, 900)
    const low = policy({ digestTokens: 5 })
    assert.strictEqual(low.digestTokens.value, DigestTokenRange.min)
    assert.strictEqual(low.notices.length, 1)
    assert.include(low.notices[0]!.reason, "below the minimum")
    const high = policy({ digestTokens: 1e9 })
    assert.strictEqual(high.digestTokens.value, DigestTokenRange.max)
    assert.strictEqual(policy({ digestTokens: "lots" }).digestTokens.value, 1_500)
    assert.deepStrictEqual(checkDigestTokens(1_200.5), { fix: 1_200, reason: "is not a whole number of tokens" })
  })
})

