import { assert, describe, it } from "@effect/vitest"
import type { RawEntry } from "../../src/domain/entries.ts"
import { pendingRequest } from "../../src/domain/pending.ts"

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
