import { afterEach, describe, expect, it } from "vitest"
import { createPiContext } from "../../src/main.ts"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

/**
 * What stays in Pi's chat across a reset, in Pi's real loop. Pi's TUI rebuilds
 * the chat from a compaction appended during a run, starting at its kept
 * entries (test/e2e/tui.test.ts shows it on the real screen); here, what the
 * boundary's compaction keeps, what the model is sent, and the one announcement.
 */
const contextWindow = 10_000
const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
const filler = (tokens: number, tag = "z") => `${tag} ${"x".repeat(tokens * 4)}`
const markers = (h: Harness) => h.entries().filter((e) => e.type === "custom" && e.customType === "pi-context/reset-marker")

describe("the chat across a reset", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the boundary's compaction keeps the exchange that ended the window, so Pi's chat still shows it; the model never sees it", async () => {
    h = await createHarness()
    h.script([say("working on it"), checkpointAndWipe(), say("fresh start")])
    await h.prompt("an earlier request")
    await h.prompt("checkpoint then wipe")
    const compaction = h.entries().find((e) => e.type === "compaction") as { firstKeptEntryId: string } | undefined
    const lastPrompt = h.entries().findLast((e) => e.type === "message" && e.message.role === "user")!
    expect(compaction!.firstKeptEntryId).toBe(lastPrompt.id)
    // What Pi's TUI renders after the compaction: the kept exchange, then the compaction, then the new window.
    const shown = h.session.sessionManager.buildContextEntries().map((e) => (e.type === "message" ? `${e.message.role}` : e.type))
    expect(shown.slice(0, 5)).toEqual(["compaction", "user", "assistant", "toolResult", "toolResult"])
    const fresh = conversation(h.requests.at(-1)!).join("\n")
    expect(fresh).not.toContain("Memory wipe scheduled")
    expect(fresh).not.toContain("an earlier request")
  })

  it("an exchange larger than a twentieth of the window is kept from the latest turn that fits, and Pi attempts no compaction in the new window", async () => {
    h = await createHarness({
      contextWindow,
      loadPackage: false,
      extraExtensions: [createPiContext({ policy: lines })],
      settings: { compaction: { enabled: true, reserveTokens: 2_000, keepRecentTokens: 1 } }
    })
    h.script([say("ok"), say("a reply that ends past the hard line"), say("fresh window")])
    await h.prompt("hello")
    await h.prompt(filler(6_500))
    expect(markers(h)).toHaveLength(1)
    const compaction = h.entries().find((e) => e.type === "compaction") as { firstKeptEntryId: string }
    const kept = h.entries().find((e) => e.id === compaction.firstKeptEntryId) as { type: string; message?: { role: string } }
    // The 6,500-token prompt does not fit a twentieth of the window; the reply after it does.
    expect(kept.message?.role).toBe("assistant")
    await h.prompt("go on")
    expect(h.notices.filter((n) => n.message.includes("native compaction is cancelled"))).toEqual([])
    expect(h.errors).toEqual([])
  })

  it("in Pi's TUI the divider alone tells a reset: no notice repeats it (other hosts, which draw no divider, get the notice)", async () => {
    h = await createHarness({ mode: "tui" })
    h.script([checkpointAndWipe(), say("fresh start"), say("hi")])
    await h.prompt("wipe now")
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    expect(markers(h)).toHaveLength(2)
    expect(h.notices.map((n) => n.message).filter((m) => m.includes("context reset"))).toEqual([])
  })
})
