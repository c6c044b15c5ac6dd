import { assert, describe, it } from "@effect/vitest"
import type { RawEntry } from "../../src/kernel/entries.ts"
import { unansweredRequest } from "../../src/reset/pending.ts"

/** The user's latest request when it is still to be answered: unanswered, and not cancelled by the user. */
const pendingRequest = (entries: ReadonlyArray<RawEntry>): string | undefined => {
  const request = unansweredRequest(entries)
  return request?.state === "pending" ? request.text : undefined
}

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
    assert.strictEqual(pendingRequest([user("what next?"), reply("", "stop")]), "what next?")
  })

  it("is absent once answered, or when the window has no user message", () => {
    assert.isUndefined(pendingRequest([user("what next?"), toolCall(), result("bash"), reply("step 3")]))
    assert.isUndefined(pendingRequest([reply("hello")]))
    assert.isUndefined(pendingRequest([]))
    assert.isUndefined(pendingRequest([user("   ")]))
  })

  it("is cancelled, never pending, once the user stopped the run that answered it", () => {
    const aborted = raw({ role: "assistant", content: [], stopReason: "aborted" })
    // Pi before 1.5 records the same Escape as an error.
    const abortedBefore15 = raw({ role: "assistant", content: [], stopReason: "error", errorMessage: "This operation was aborted" })
    for (const cut of [aborted, abortedBefore15, reply("half", "aborted")]) {
      const entries = [user("slow: delete the build folder"), toolCall(), result("bash", true), cut]
      assert.isUndefined(pendingRequest(entries))
      assert.deepStrictEqual(unansweredRequest(entries), { text: "slow: delete the build folder", state: "cancelled" })
    }
    // A failure that is not the user's stays pending, and a new message after the cancel is pending again.
    const failed = raw({ role: "assistant", content: [], stopReason: "error", errorMessage: "503 service unavailable" })
    assert.strictEqual(pendingRequest([user("fix it"), failed]), "fix it")
    assert.deepStrictEqual(unansweredRequest([user("stop"), aborted, user("what is 2+2?")]), { text: "what is 2+2?", state: "pending" })
  })
})
