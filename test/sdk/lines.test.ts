import { afterEach, describe, expect, it } from "vitest"
import { conversation, ofCustomType } from "../support/entries.ts"
import { dirsWith, filler } from "../support/invariants.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { say } from "../support/steps.ts"

/**
 * The default lines on windows of different sizes, in Pi's real loop, and
 * what `/pi-context status` and `/pi-context doctor` say about them. A fresh
 * root window (system prompt, boot, tools) is about 2,500 tokens by the faux
 * model's chars/4.
 */
const GUIDANCE = "[pi-context] Context budget"
const WARNING = "[pi-context] Final context warning"

const occurrences = (request: { readonly messages: ReadonlyArray<unknown> }, needle: string) =>
  conversation(request).join("\n").split(needle).length - 1

const percentUsed = (h: Harness) => Number(/· (\d+)% ·/.exec(h.statuses.filter((s) => s.key === "pi-context").at(-1)!.text!)![1])

const reply = async (h: Harness, command: string) => {
  await h.prompt(command)
  return h.notices.at(-1)!.message
}

describe("the default lines scale with the window", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("on a 32,000-token window the first prompt (14% used) gets no reminder; the guidance comes at its scaled line", async () => {
    h = await createHarness({ contextWindow: 32_000 })
    h.script([say("ok"), say("ok")])
    await h.prompt(filler(2_000))
    expect(percentUsed(h)).toBeGreaterThanOrEqual(13)
    expect(occurrences(h.requests[0]!, GUIDANCE) + occurrences(h.requests[0]!, WARNING)).toBe(0)
    expect(h.notices.filter((n) => /final warning|write its notes/.test(n.message))).toEqual([])
    // 60% of the 15,616 tokens above Pi's reserve: the guidance line at 25,753 tokens left (20% used); the warning (40%) not yet.
    await h.prompt(filler(2_500))
    expect(occurrences(h.requests[1]!, GUIDANCE)).toBe(1)
    expect(occurrences(h.requests[1]!, WARNING)).toBe(0)
    const status = await reply(h, "/pi-context status")
    expect(status).toContain("model: faux/faux-1 (32,000-token window)")
    expect(status).toContain("guidance line: 25,753 tokens left (default: hard line + 9,369 = 60% of the 15,616 above it)")
    expect(status).toContain("warning line: 22,630 tokens left (default: hard line + 6,246 = 40% of the 15,616 above it)")
    expect(status).toContain("hard line: 16,384 tokens left (default: Pi's reserve for the reply, at Pi's default)")
    expect(h.errors).toEqual([])
  })

  it("on a 200,000-token window the lines keep their fixed runways, and the guidance fires at 40,960 tokens left", async () => {
    h = await createHarness({ contextWindow: 200_000 })
    h.script([say("ok"), say("ok")])
    await h.prompt(filler(150_000)) // about 47,500 left
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)
    await h.prompt(filler(8_000)) // about 39,500 left
    expect(occurrences(h.requests[1]!, GUIDANCE)).toBe(1)
    const status = await reply(h, "/pi-context status")
    expect(status).toContain("guidance line: 40,960 tokens left (default: hard line + 24,576)")
    expect(status).toContain("warning line: 28,672 tokens left (default: hard line + 12,288)")
  })

  it("status says where a set line comes from, and doctor names a hard line below Pi's reserve with its fix", async () => {
    const settings = { "pi-context": { hardLine: 8_000, guidanceLine: 20_000 } }
    h = await createHarness({ dirs: dirsWith(settings), settings, contextWindow: 32_000 })
    const status = await reply(h, "/pi-context status")
    expect(status).toContain("guidance line: 20,000 tokens left (set in the global settings.json: pi-context.guidanceLine)")
    expect(status).toContain("warning line: 17,600 tokens left (default: hard line + 9,600 = 40% of the 24,000 above it)")
    expect(status).toContain("hard line: 8,000 tokens left (set in the global settings.json: pi-context.hardLine)")
    const doctor = await reply(h, "/pi-context doctor")
    expect(doctor).toMatch(
      /^FAIL settings: the hard line \(8,000 tokens left, set in the global settings\.json: pi-context\.hardLine\) is below Pi's reserve for the model's reply \(compaction\.reserveTokens, 16,384\).*Raise pi-context\.hardLine to at least 16,384/m
    )
    expect(doctor).not.toContain("settings: no problems")
  })
})
