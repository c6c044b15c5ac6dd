import { calculateContextTokens, estimateTokens } from "@earendil-works/pi-coding-agent"
import { describe, expect, it } from "vitest"
import { estimateRequestTokens, projectRequest } from "../../src/window/projection.ts"

const usage = (totalTokens: number) => ({ input: totalTokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } })
const system = { role: "system", content: "", sections: { preamble: "You are a test." }, toolsAdded: [{ name: "read" }], timestamp: 1 }
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 })
const reply = (text: string, total: number, stopReason = "stop") =>
  ({ role: "assistant", content: [{ type: "text", text }, { type: "toolCall", id: "c", name: "read", arguments: { path: "a" } }], usage: usage(total), stopReason, timestamp: 1 })
const result = (text: string) => ({ role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text }, { type: "image", data: "", mimeType: "image/png" }], isError: false, timestamp: 1 })
const boot = (windowId: string) => ({ role: "custom", customType: "pi-context/boot", content: "## Context window", display: false, details: { windowId }, timestamp: 1 })

/** Pi's own figure for a context (getContextUsage: last valid reply's usage + estimateTokens of what follows). */
const piFigure = (messages: ReadonlyArray<Record<string, unknown>>): number => {
  let trailing = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role: string; usage?: Parameters<typeof calculateContextTokens>[0]; stopReason?: string }
    if (m.role === "assistant" && m.usage && m.stopReason !== "error" && m.stopReason !== "aborted" && calculateContextTokens(m.usage) > 0) {
      return calculateContextTokens(m.usage) + trailing
    }
    trailing += estimateTokens(m as never)
  }
  return trailing
}

describe("estimateRequestTokens", () => {
  it("is the last valid reply's usage plus Pi's own estimate of every message after it", () => {
    const messages = [system, boot("w1"), user("hello"), reply("ok", 1_234), result("x".repeat(401)), user("more ".repeat(30))]
    const estimate = estimateRequestTokens(messages)
    expect(estimate).toEqual({ _tag: "Measured", tokens: piFigure(messages) })
    expect(estimate.tokens).toBeGreaterThan(1_234 + 1_200) // the image counts as Pi counts it
  })

  it("skips aborted, failed and empty replies, as Pi does", () => {
    const messages = [system, user("a"), reply("good", 500), user("b"), reply("", 0), reply("boom", 9_999, "error"), reply("stop", 8_888, "aborted")]
    expect(estimateRequestTokens(messages)).toEqual({ _tag: "Measured", tokens: piFigure(messages) })
  })

  it("without a reply estimates everything, counting only the newest system prompt, and says when it starts from a compaction", () => {
    const messages = [system, user("a".repeat(100)), { ...system, sections: { preamble: "newer prompt" } }, user("b".repeat(40))]
    const expected = estimateTokens(messages[2] as never) + estimateTokens(messages[1] as never) + estimateTokens(messages[3] as never)
    expect(estimateRequestTokens(messages)).toEqual({ _tag: "Estimated", tokens: expected, compacted: false })
    const compacted = [system, { role: "compactionSummary", summary: "s".repeat(8), tokensBefore: 1, timestamp: 1 }, user("c")]
    expect(estimateRequestTokens(compacted)).toMatchObject({ _tag: "Estimated", compacted: true })
  })

  it("measures only the projected window: a reply before the boot does not count", () => {
    const messages = [system, user("old"), reply("old", 90_000), boot("w2"), user("fresh")]
    const projection = projectRequest(messages, { id: "w2", isRoot: false, tail: [{ _tag: "Marker", id: "m", timestamp: "t", windowId: "w2" }, { _tag: "Boot", id: "b", timestamp: "t", windowId: "w2" }] })
    expect(projection._tag).toBe("Projected")
    const projected = projection._tag === "Projected" ? projection.messages : []
    expect(estimateRequestTokens(projected)._tag).toBe("Estimated")
  })

  it("never throws on another extension's message of an unexpected shape: it counts as nothing", () => {
    const odd = [
      system,
      { role: "custom", customType: "other/widget", content: [null, 42, { type: "text", text: "abcd" }] },
      { role: "custom", customType: "other/widget", content: { rows: 3 } },
      { role: "assistant", content: [null, { type: "text", text: "abcdefgh" }] }
    ]
    expect(() => estimateRequestTokens(odd as never)).not.toThrow()
    expect(estimateRequestTokens(odd.slice(1) as never)).toEqual({ _tag: "Estimated", tokens: 3, compacted: false })
  })
})
