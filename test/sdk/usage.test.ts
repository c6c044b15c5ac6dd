import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { say } from "../support/steps.ts"

/**
 * One usage figure, read three ways in the same state: the status line,
 * `context_remaining` and `/pi-context status`. The faux model reports usage
 * as chars/4 of the request, so a 30,000-token prompt fills a third of the window.
 */
const contextWindow = 100_000
const filler = (tokens: number) => `z ${"x".repeat(tokens * 4)}`

/** `context_remaining` run by Pi's own tool wrapper, as a model's call would run it, but without a model turn. */
const contextRemaining = async (h: Harness) => {
  const tool = h.session.agent.state.tools.find((candidate) => candidate.name === "context_remaining")!
  const result = await tool.execute("usage-probe", {})
  return {
    text: result.content.map((part) => ("text" in part ? part.text : "")).join(""),
    details: result.details as { readonly tokensLeft: number | null; readonly contextWindow: number | null }
  }
}

const statusLine = (h: Harness) => h.statuses.filter((s) => s.key === "pi-context").at(-1)!.text!

const statusReport = async (h: Harness) => {
  await h.prompt("/pi-context status")
  return h.notices.at(-1)!.message
}

describe("one usage figure", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the status line, context_remaining and /pi-context status agree, in a full window and after /wipe-memory before its first reply", async () => {
    h = await createHarness({ contextWindow })
    h.script([say("ok"), say("fresh window")])
    await h.prompt(filler(30_000))

    const fullPercent = Number(/^pi-context · (\d+)% · w1$/.exec(statusLine(h))![1])
    expect(fullPercent).toBeGreaterThan(25)
    const full = await contextRemaining(h)
    expect(full.text).toContain(`${fullPercent}% of this window used`)
    expect(await statusReport(h)).toContain(`(${fullPercent}%), ${full.details.tokensLeft!.toLocaleString("en-US")} left`)

    await h.prompt("/wipe-memory")
    // Pi still counts the ended window: a command boundary has no compaction to stop its figure.
    expect(h.session.getContextUsage()!.tokens).toBeGreaterThan(contextWindow / 4)
    expect(statusLine(h)).toBe("pi-context · ?% · w2")
    const wiped = await contextRemaining(h)
    expect(wiped.details.tokensLeft).toBeNull()
    expect(wiped.text).toContain("not known yet")
    expect(await statusReport(h)).toContain("usage: unknown")

    await h.prompt("go on")
    const freshPercent = Number(/^pi-context · (\d+)% · w2$/.exec(statusLine(h))![1])
    expect(freshPercent).toBeLessThan(fullPercent)
    expect((await contextRemaining(h)).text).toContain(`${freshPercent}% of this window used`)
    expect(await statusReport(h)).toContain(`(${freshPercent}%)`)
    expect(h.errors).toEqual([])
  })
})
