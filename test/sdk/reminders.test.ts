import { afterEach, describe, expect, it } from "vitest"
import { conversation, ofCustomType } from "../support/entries.ts"
import { dirsWith, filler } from "../support/invariants.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { call, say } from "../support/steps.ts"

/**
 * What the model is told at the window's edge, and when, in Pi's real loop.
 * The faux model reports a reply's usage as chars/4 of its request plus its
 * own text, so a long reply can by itself take the window past a line.
 */
const GUIDANCE = "[pi-context] Context budget"
const WARNING = "[pi-context] Final context warning"

const occurrences = (request: { readonly messages: ReadonlyArray<unknown> }, needle: string) =>
  conversation(request).join("\n").split(needle).length - 1

/** Settings as Pi has them: in the global file and in Pi's own settings. */
const withSettings = (settings: Record<string, unknown>) => ({ dirs: dirsWith(settings), settings })

/** The figures a text carries, in order ("7,519" -> 7519). */
const figures = (text: string): Array<number> => [...text.matchAll(/\d[\d,]*/g)].map((match) => Number(match[0].replaceAll(",", "")))

const replyTokens = (h: Harness): Array<number> =>
  h.entries().flatMap((entry) =>
    entry.type === "message" && entry.message.role === "assistant" ? [entry.message.usage.totalTokens] : []
  )

describe("reminders reach the model when their line is crossed, with numbers true for that request", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the guidance is in the request right after the reply that crossed its line (128k window, reserve 8,192)", async () => {
    h = await createHarness({ ...withSettings({ compaction: { enabled: false, reserveTokens: 8_192 } }), contextWindow: 128_000 })
    h.script([say("ok"), say(`long answer ${"y".repeat(40_000 * 4)}`), say("ok"), say("ok")])
    await h.prompt(filler(60_000))
    await h.prompt("write it all out")
    const [first, second] = replyTokens(h)
    expect(first).toBeGreaterThan(59_000)
    expect(second).toBeGreaterThan(99_000) // 28,000 left: past the guidance line (8,192 + 24,576)
    await h.prompt("next")
    const crossing = h.requests[2]!
    expect(occurrences(h.requests[1]!, GUIDANCE)).toBe(0)
    expect(occurrences(crossing, GUIDANCE)).toBe(1)
    expect(conversation(crossing).at(-1)).toMatch(/^user: \[pi-context\] Context budget/)
    // Its figure was true for the request that carried it: the window minus that request, less the warning line.
    const beforeWarning = figures(conversation(crossing).at(-1)!)[0]!
    const requestTokens = replyTokens(h)[2]!
    expect(Math.abs(beforeWarning - (128_000 - requestTokens - (8_192 + 12_288)))).toBeLessThan(400)
    // Committed at that turn's end: the next request carries it once, from its entry.
    await h.prompt("and then")
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(1)
    expect(occurrences(h.requests[3]!, GUIDANCE)).toBe(1)
    expect(h.errors).toEqual([])
  })

  it("the model's reminder and the user's notice carry the same numbers", async () => {
    const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
    h = await createHarness({ ...withSettings({ "pi-context": lines }), contextWindow: 10_000 })
    // A tool turn between the crossing and the notice changes the window's usage.
    h.script([say("ok"), call("context_remaining", {}), say("noted"), call("context_remaining", {}), say("done")])
    await h.prompt("hello")
    await h.prompt(filler(2_000))
    await h.prompt(filler(1_200))
    const told = (customType: string) => (ofCustomType(h.entries(), customType)[0] as { content: string }).content
    const noticeOf = (pattern: RegExp) => h.notices.map((n) => n.message).find((m) => pattern.test(m))!
    const guidanceNotice = noticeOf(/the model was asked to write its notes/)
    const warningNotice = noticeOf(/final warning sent to the model/)
    expect(figures(told("pi-context/guidance")).length).toBeGreaterThan(0)
    expect(figures(guidanceNotice)).toEqual(figures(told("pi-context/guidance")))
    expect(figures(warningNotice)).toEqual(figures(told("pi-context/warning")))
  })

  it("no request presents an earlier count as current: a reminder in the history says when it was true", async () => {
    const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
    h = await createHarness({ ...withSettings({ "pi-context": lines }), contextWindow: 10_000 })
    h.script([say("ok"), call("context_remaining", {}), say("noted"), say("ok"), say("ok")])
    await h.prompt("hello")
    await h.prompt(filler(2_000)) // guidance, then a tool turn in the same run
    await h.prompt(filler(1_200)) // warning, with the guidance in the history
    await h.prompt("small step")
    const withBoth = h.requests.filter((request) => occurrences(request, GUIDANCE) === 1 && occurrences(request, WARNING) === 1)
    expect(withBoth.length).toBeGreaterThan(0)
    for (const request of h.requests) {
      const text = conversation(request).join("\n")
      // Never a bare present-tense count ("about 3,318 tokens remain"): each figure is dated and points to context_remaining.
      expect(text).not.toMatch(/tokens remain\b/)
      for (const line of conversation(request).filter((l) => l.startsWith("user: [pi-context] "))) {
        if (line.includes(GUIDANCE) || line.includes(WARNING)) {
          expect(line).toMatch(/when this (reminder|warning) was sent/)
          expect(line).toContain("context_remaining")
        }
      }
    }
    expect(h.errors).toEqual([])
  })

  it("within a window each request extends the one before, reminders included (the prompt cache holds)", async () => {
    const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
    h = await createHarness({ ...withSettings({ "pi-context": lines }), contextWindow: 10_000 })
    h.script([say("ok"), call("context_remaining", {}), say("noted"), call("context_remaining", {}), say("saved"), say("ok")])
    await h.prompt("hello")
    await h.prompt(filler(2_000)) // guidance, then a tool turn
    await h.prompt(filler(1_200)) // warning, then a tool turn
    await h.prompt("small step")
    expect(h.requests).toHaveLength(6)
    expect(h.requests.filter((request) => occurrences(request, GUIDANCE) === 1)).toHaveLength(5)
    expect(h.requests.filter((request) => occurrences(request, WARNING) === 1)).toHaveLength(3)
    for (let i = 1; i < h.requests.length; i++) {
      const before = conversation(h.requests[i - 1]!)
      expect(conversation(h.requests[i]!).slice(0, before.length)).toEqual(before)
    }
    // The model reads each reminder where it read it first: before the reply it gave to that request.
    const last = conversation(h.requests.at(-1)!)
    const guidanceAt = last.findIndex((line) => line.startsWith(`user: ${GUIDANCE}`))
    expect(last[guidanceAt + 1]).toBe("assistant: [toolCall:context_remaining]")
    expect(h.errors).toEqual([])
  })
})
