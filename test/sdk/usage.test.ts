import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

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
    details: result.details as { readonly tokensLeft: number | null; readonly contextWindow: number | null; readonly estimated: boolean }
  }
}

const statusLine = (h: Harness) => h.statuses.filter((s) => s.key === "pi-context").at(-1)?.text

const statusReport = async (h: Harness) => {
  await h.prompt("/pi-context status")
  return h.notices.at(-1)!.message
}

describe("one usage figure", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the status line, context_remaining and /pi-context status agree, in a full window and after /wipe-memory before its first reply", async () => {
    h = await createHarness({ contextWindow })
    h.script([say("first"), say("ok"), say("fresh window")])
    // A reset first: from it on the history tools are offered, so the estimate below sees the tools the request will carry.
    // (Right after a session's first reset, before its first reply, the estimate leaves them out: about 540 tokens.)
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    await h.prompt(filler(30_000))

    const fullPercent = Number(/^pi-context · (\d+)% · w2$/.exec(statusLine(h)!)![1])
    expect(fullPercent).toBeGreaterThan(25)
    const full = await contextRemaining(h)
    expect(full.text).toContain(`${fullPercent}% of this window used`)
    expect(full.details.estimated).toBe(false)
    expect(await statusReport(h)).toContain(`(${fullPercent}%), ${full.details.tokensLeft!.toLocaleString("en-US")} left`)

    await h.prompt("/wipe-memory")
    // Pi's footer counts the new window too: the boundary's context edits leave the ended window out of Pi's figure.
    const piTokens = h.session.getContextUsage()!.tokens!
    expect(piTokens).toBeLessThan(contextWindow / 10)
    // pi-context shows the new window as its next request will send it (system prompt, boot, continuation), as an estimate.
    const estimatedPercent = Number(/^pi-context · ~(\d+)% · w3$/.exec(statusLine(h)!)![1])
    expect(estimatedPercent).toBeLessThan(fullPercent)
    const wiped = await contextRemaining(h)
    expect(wiped.details.estimated).toBe(true)
    expect(wiped.text).toContain(`~${estimatedPercent}% of this window used`)
    expect(wiped.text).toContain("an estimate until a reply in this window reports its usage")
    const estimatedTokens = contextWindow - wiped.details.tokensLeft!
    // One figure for the new window: Pi's footer and pi-context estimate it alike (its system prompt and tools, the boot, the continuation).
    expect(estimatedTokens).toBe(piTokens)
    expect(await statusReport(h)).toContain(`(~${estimatedPercent}%), ${wiped.details.tokensLeft!.toLocaleString("en-US")} left`)

    await h.prompt("go on")
    // The provider's figure for that request (the faux model reports chars/4 of it) matches the estimate, plus the prompt.
    const reported = h.session.getContextUsage()!.tokens!
    const request = h.requests.at(-1)!.messages as ReadonlyArray<Record<string, unknown>>
    // It is led by Pi's whole system prompt and tool set, not only the latest change to them (the history tools, offered at the first reset).
    const tools = (request[0]!.toolsAdded as ReadonlyArray<{ name: string }>).map((tool) => tool.name)
    expect(tools).toEqual(expect.arrayContaining(["notes_read", "notes_write", "wipe_memory", "context_remaining", "history_read"]))
    expect(request[0]!.sections).toBeDefined()
    expect(Math.abs(reported - estimatedTokens)).toBeLessThan(100)
    const freshPercent = Number(/^pi-context · (\d+)% · w3$/.exec(statusLine(h)!)![1])
    expect(freshPercent).toBeLessThan(fullPercent)
    expect((await contextRemaining(h)).text).toContain(`${freshPercent}% of this window used`)
    expect(await statusReport(h)).toContain(`(${freshPercent}%)`)
    expect(h.errors).toEqual([])
  })

  it("a fresh window's first request, whose estimate is past a line, carries no reminder: none follows a reply yet", async () => {
    const dirs = makeDirs()
    mkdirSync(dirs.agentDir, { recursive: true })
    writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({ "pi-context": { guidanceLine: 9_800, warningLine: 9_700, hardLine: 1_000 } }))
    h = await createHarness({ dirs, contextWindow: 10_000 })
    h.script([checkpointAndWipe(), say("fresh start"), say("next")])
    await h.prompt("wipe now")
    await h.prompt("go on")
    const reminded = h.requests.map((request) => /\[pi-context\] (Final context warning|Context budget)/.test(JSON.stringify(request.messages)))
    const firstOfW2 = h.requests.findIndex((request) => JSON.stringify(request.messages).includes("Your context window was just reset"))
    expect(firstOfW2).toBeGreaterThan(0)
    expect(reminded[firstOfW2]).toBe(false)
    expect(reminded[firstOfW2 + 1]).toBe(true)
    expect(h.errors).toEqual([])
  })

  it("a session resumed in a window with no reply yet shows the next request's estimate, not ?%", async () => {
    const dirs = makeDirs()
    const sessions = join(dirs.root, "sessions")
    h = await createHarness({ dirs, contextWindow, sessionManager: (cwd) => SessionManager.create(cwd, sessions) })
    h.script([say("ok")])
    await h.prompt(filler(30_000))
    await h.prompt("/wipe-memory")
    const before = statusLine(h)
    expect(before).toMatch(/^pi-context · ~\d+% · w2$/)
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()

    h = await createHarness({ dirs, contextWindow, sessionManager: (cwd) => SessionManager.open(file, sessions, cwd) })
    // pi-context's runtime loads after session_start, then sets the status line.
    await vi.waitFor(() => expect(statusLine(h)).toBe(before), { timeout: 15_000 })
    const resumed = await contextRemaining(h)
    expect(resumed.details.estimated).toBe(true)
    expect(resumed.text).toContain(`${/~\d+%/.exec(before!)![0]} of this window used`)
    expect(h.errors).toEqual([])
  })

  it("a session resumed after the model's reset shows the new window's figure", async () => {
    const dirs = makeDirs()
    const sessions = join(dirs.root, "sessions")
    h = await createHarness({ dirs, contextWindow, sessionManager: (cwd) => SessionManager.create(cwd, sessions) })
    h.script([say("ok"), checkpointAndWipe(), say("fresh start")])
    await h.prompt(filler(30_000))
    await h.prompt("checkpoint and wipe")
    const before = statusLine(h)
    expect(before).toMatch(/^pi-context · \d+% · w2$/)
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()

    h = await createHarness({ dirs, contextWindow, sessionManager: (cwd) => SessionManager.open(file, sessions, cwd) })
    // pi-context's runtime loads after session_start, then sets the status line.
    await vi.waitFor(() => expect(statusLine(h)).toBe(before), { timeout: 15_000 })
    expect(await statusReport(h)).toContain(`(${/\d+%/.exec(before!)![0]})`)
    expect(h.errors).toEqual([])
  })
})
