import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { toolResults } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const say = (text: string) => fauxAssistantMessage(text)
const call = (name: string, args: Parameters<typeof fauxToolCall>[1]) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })

/** Another extension whose `/inject` appends a visible custom message whose content is not text. */
const injector = (pi: ExtensionAPI) => {
  pi.registerCommand("inject", {
    description: "append a custom message with non-text content",
    handler: async () => pi.sendMessage({ customType: "other/widget", content: { rows: 3 } as never, display: true })
  })
}

describe("foreign entries that break Pi's own helpers", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a custom message whose content is not text: Pi's usage cannot be read, pi-context says so once and every hook goes on", async () => {
    h = await createHarness({ extraExtensions: [injector] })
    h.script([say("first")])
    await h.prompt("hello")
    await h.prompt("/inject")
    // Pi's own count throws on that entry.
    expect(() => h.session.getContextUsage()).toThrow()
    // Turning pi-context on drops what was measured, so the root window falls back to Pi's figure (status line, status report).
    await h.prompt("/pi-context on")
    await h.prompt("/pi-context status")
    // A fresh window estimates its next request from the branch itself, past the foreign entry.
    await h.prompt("/wipe-memory")
    h.script([call("context_remaining", {}), call("history_search", { query: "first" }), say("done")])
    await h.prompt("again")
    await h.prompt("/pi-context status")
    const messages = h.notices.map((n) => n.message)
    expect(messages.filter((m) => m.includes("failed"))).toEqual([])
    const faults = messages.filter((m) => m.includes("Pi's context usage could not be read"))
    expect(faults).toHaveLength(1)
    expect(faults[0]).toContain("the usage counts as unknown")
    expect(messages.at(-1)).toMatch(/^pi-context [\d.]+: on\nwindow: /)
    const results = toolResults(h.entries())
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([["context_remaining", false], ["history_search", false]])
    expect(results[1]!.text).toContain("first")
    expect(h.errors).toEqual([])
  })
})
