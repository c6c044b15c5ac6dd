import { afterEach, describe, expect, it } from "vitest"
import { createPiContext } from "../../src/main.ts"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

/**
 * What stays in Pi's chat across a reset, in Pi's real loop. A reset
 * compacts nothing: context edits leave the ended window out of Pi's own
 * context, so Pi's TUI, which redraws the chat only at a compaction, keeps
 * the whole conversation above the divider (test/e2e/tui.test.ts shows it on
 * the real screen), and on resume draws it again from its context entries.
 */
const contextWindow = 10_000
const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
const filler = (tokens: number, tag = "z") => `${tag} ${"x".repeat(tokens * 4)}`
const markers = (h: Harness) => h.entries().filter((e) => e.type === "custom" && e.customType === "pi-context/reset-marker")
/** What Pi's TUI draws of a session (on resume, or after a compaction): its context entries, each message by role and text. */
const chat = (h: Harness) =>
  h.session.sessionManager.buildContextEntries().flatMap((e) => (e.type === "message" ? [`${e.message.role}: ${JSON.stringify(e.message).slice(0, 200)}`] : [e.type]))
/** Pi's own context: the messages it counts for its footer and its compaction threshold. */
const piContext = (h: Harness) =>
  h.session.sessionManager.buildSessionProjection().messages.filter((m) => m.role !== "system").map((m) => (m.role === "custom" ? m.customType : m.role))

describe("the chat across a reset", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the chat keeps every prompt and reply of the ended window; Pi's own context starts at the boot; the model never sees the ended window", async () => {
    h = await createHarness()
    h.script([say("working on it"), checkpointAndWipe(), say("fresh start")])
    await h.prompt("an earlier request")
    await h.prompt("checkpoint then wipe")
    expect(h.allEntries().some((e) => e.type === "compaction")).toBe(false)
    const shown = chat(h).join("\n")
    for (const said of ["an earlier request", "working on it", "checkpoint then wipe", "fresh start"]) expect(shown).toContain(said)
    // Pi counts the new window alone: every message it held before the boot is hidden by a context edit.
    expect(piContext(h)).toEqual(["pi-context/boot", "pi-context/continuation", "assistant"])
    const fresh = conversation(h.requests.at(-1)!).join("\n")
    expect(fresh).not.toContain("Memory wipe scheduled")
    expect(fresh).not.toContain("an earlier request")
  })

  it("a full window's reset during a run: the long prompt stays in the chat, Pi's footer counts the new window at once, and Pi attempts no compaction", async () => {
    h = await createHarness({
      contextWindow,
      loadPackage: false,
      extraExtensions: [createPiContext({ policy: lines })],
      settings: { compaction: { enabled: true, reserveTokens: 2_000, keepRecentTokens: 1 } }
    })
    h.script([say("ok"), say("a reply that ends past the hard line"), say("fresh window")])
    await h.prompt("hello")
    await h.prompt(filler(6_500, "LONG-PROMPT"))
    expect(markers(h)).toHaveLength(1)
    expect(chat(h).join("\n")).toContain("LONG-PROMPT")
    // Pi's footer, before the new window's first reply: its system prompt, the boot and the continuation, not the
    // 6,500 tokens of the ended window. pi-context's status line gives the same figure, but for the warning that the
    // crossing turn carried and committed with the boundary: Pi still counts it (about 100 tokens), the request does not.
    const usage = h.session.getContextUsage()!
    expect(usage.tokens!).toBeLessThan(6_500)
    const status = h.statuses.filter((s) => s.key === "pi-context").at(-1)!.text!
    expect(status).toMatch(/~\d+% · w2$/)
    expect(Math.abs(usage.percent! - Number(/~(\d+)%/.exec(status)![1]))).toBeLessThan(2)
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
