import { afterEach, describe, expect, it } from "vitest"
import { conversation, kinds, ofCustomType, toolResults } from "../support/entries.ts"
import { boundaryViolation, dirsWith, filler, lostPendingRequest, markerIndexes } from "../support/invariants.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { bareWipe, call, checkpointAndWipe, say } from "../support/steps.ts"

const contextWindow = 10_000
const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }

const continuationOf = (h: Harness, index = -1) =>
  (ofCustomType(h.entries(), "pi-context/continuation").at(index) as { content: string } | undefined)?.content ?? ""

describe("continuity: the checkpoint check", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("refuses a window's first wipe_memory without a note, then honours it once a note is written", async () => {
    h = await createHarness()
    h.script([bareWipe(), call("notes_write", { address: "checkpoint", content: "# Checkpoint\nnext: step 2" }), bareWipe(), say("fresh")])
    await h.prompt("wipe your memory")
    const wipes = toolResults(h.entries()).filter((r) => r.toolName === "wipe_memory")
    expect(wipes).toHaveLength(2)
    // A normal result, not an error and not terminal: it says what to write and to call again.
    expect(wipes[0]!.isError).toBe(false)
    expect(wipes[0]!.text).toMatch(/Not reset yet.*MAP.*goal.*next step.*notes_write.*call wipe_memory again/s)
    expect(wipes[1]!.text).toContain("Memory wipe scheduled")
    const all = kinds(h.entries())
    const markers = markerIndexes(h.entries())
    expect(markers).toHaveLength(1)
    // Nothing was committed at the refused call: the only boundary follows the honoured one.
    expect(all.slice(markers[0]! - 1, markers[0]!)).toEqual(["message:toolResult"])
    expect(h.requests).toHaveLength(4)
    expect(conversation(h.requests[3]!)[0]).toMatch(/^user: ## Context window/)
  })

  it("a window that wrote only a note of another home: the next boot names it, rather than saying no note was written", async () => {
    h = await createHarness()
    h.script([call("notes_write", { address: "@user/preferences.md", content: "# Preferences\nterse answers" }), bareWipe(), say("fresh")])
    await h.prompt("remember that I like terse answers, then reset")
    expect(markerIndexes(h.entries())).toHaveLength(1)
    const boot = conversation(h.requests[2]!)[0]!
    expect(boot).toContain("w1 ended without a checkpoint in this session's notes (it wrote only @user/preferences.md), so of its work")
    expect(boot).not.toContain("no note was written")
    // The divider says no note of this session was written, not that no note was.
    const marker = ofCustomType(h.entries(), "pi-context/reset-marker")[0] as { data: { shown: { checkpointed: boolean } } }
    expect(marker.data.shown.checkpointed).toBe(false)
  })

  it("a second wipe_memory in the same window goes through without a note (no deadlock)", async () => {
    h = await createHarness()
    h.script([bareWipe(), bareWipe(), say("fresh")])
    await h.prompt("wipe your memory")
    const wipes = toolResults(h.entries()).filter((r) => r.toolName === "wipe_memory")
    expect(wipes.map((w) => w.text.slice(0, 13))).toEqual(["Not reset yet", "Memory wipe s"])
    expect(markerIndexes(h.entries())).toHaveLength(1)
  })

  it("pi-context.checkpointCheck false lets the first wipe_memory through", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": { checkpointCheck: false } }) })
    h.script([bareWipe(), say("fresh")])
    await h.prompt("wipe your memory")
    expect(toolResults(h.entries()).map((r) => r.text.slice(0, 13))).toEqual(["Memory wipe s"])
    expect(markerIndexes(h.entries())).toHaveLength(1)
  })

  it("/wipe-memory is never refused, even in a window without a note", async () => {
    h = await createHarness()
    h.script([say("hello back")])
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(boundaryViolation(h.entries())).toBeUndefined()
  })
})

describe("continuity: the pending request", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a model-driven reset carries the user's unanswered question into the new window", async () => {
    h = await createHarness()
    h.script([checkpointAndWipe(), say("step 3 is next")])
    await h.prompt("what is next on the plan?")
    const fresh = conversation(h.requests[1]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[1]).toContain("had no reply when the window ended")
    expect(fresh[1]!.endsWith("what is next on the plan?")).toBe(true)
    expect(lostPendingRequest(h.entries())).toBeUndefined()
  })

  it("an answered request is not presented as pending, by /wipe-memory or by the hard line", async () => {
    h = await createHarness()
    h.script([say("the answer is 4")])
    await h.prompt("what is 2+2?")
    await h.prompt("/wipe-memory")
    expect(continuationOf(h)).not.toContain("what is 2+2?")
    expect(continuationOf(h)).not.toContain("had no reply")
    await h.dispose()

    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("answered in full")])
    await h.prompt("hello")
    await h.prompt(filler(5_800, "ANSWERED-QUESTION"))
    expect(markerIndexes(h.entries())).toHaveLength(1)
    // The automatic reset carries the window's digest, but not as a pending request.
    expect(continuationOf(h)).toContain("This reset was automatic")
    expect(continuationOf(h)).not.toContain("pending request")
  })
})

describe("continuity: no model call after a finished reply", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a finished reply past the hard line commits the boundary at settlement with no provider call; the next prompt starts at the boot", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("here is the whole answer"), say("fresh window answer")])
    await h.prompt("hello")
    await h.prompt(filler(5_800, "BIG-QUESTION"))
    expect(h.faux.state.callCount).toBe(2)
    expect(h.requests).toHaveLength(2)
    expect(kinds(h.entries()).slice(-5)).toEqual([
      "message:assistant",
      "custom_message:pi-context/warning",
      "custom:pi-context/reset-marker",
      "custom_message:pi-context/boot",
      "custom_message:pi-context/continuation"
    ])
    await h.prompt("and the next step?")
    expect(h.requests).toHaveLength(3)
    const fresh = conversation(h.requests[2]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[1]).toMatch(/^user: Your context window was just reset/)
    expect(fresh.at(-1)).toBe("user: and the next step?")
    expect(fresh.slice(2, -1).join("\n")).not.toContain("BIG-QUESTION")
  })

  it("a follow-up queued during that reply starts in the fresh window, not the full one", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([
      say("ok"),
      () => {
        void h.session.followUp("and then? (FOLLOW-UP)")
        return say("here is the whole answer")
      },
      say("answering the follow-up")
    ])
    await h.prompt("hello")
    await h.prompt(filler(5_800, "BIG-QUESTION"))
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(h.requests).toHaveLength(3)
    const fresh = conversation(h.requests[2]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh.at(-1)).toBe("user: and then? (FOLLOW-UP)")
    expect(fresh.slice(2, -1).join("\n")).not.toContain("BIG-QUESTION")
  })
})

describe("continuity: /wipe-memory only while idle", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  const raceScript = () => [call("context_remaining", {}), say("the answer is 4 (QUESTION-SEEN)")]

  const checkRace = (h: Harness) => {
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(boundaryViolation(h.entries())).toBeUndefined()
    // The question reached the model, with its tool results, in one window.
    const asked = h.requests.filter((r) => conversation(r).some((line) => line.includes("what is 2+2? (RACE)")))
    expect(asked.length).toBeGreaterThan(0)
    for (const request of asked) {
      const seen = conversation(request)
      expect(seen.filter((line) => line.startsWith("user: ## Context window"))).toHaveLength(1)
    }
    expect(h.errors).toEqual([])
  }

  it("a prompt sent just before /wipe-memory: marker, boot and continuation stay consecutive and the question is seen", async () => {
    h = await createHarness()
    h.script(raceScript())
    const run = h.session.prompt("what is 2+2? (RACE)")
    await h.session.prompt("/wipe-memory")
    await run
    await h.waitForIdle()
    checkRace(h)
  })

  it("/wipe-memory during a run waits, says so, and lands in one block when the run settles, with no model call", async () => {
    h = await createHarness()
    h.script([
      () => {
        void h.session.prompt("/wipe-memory")
        return call("context_remaining", {})
      },
      say("the answer is 4 (QUESTION-SEEN)")
    ])
    await h.prompt("what is 2+2? (RACE)")
    await h.waitForIdle()
    checkRace(h)
    expect(h.requests).toHaveLength(2)
    // The run answered in the old window; the boundary follows its settlement.
    expect(kinds(h.entries()).slice(-4)).toEqual([
      "message:assistant",
      "custom:pi-context/reset-marker",
      "custom_message:pi-context/boot",
      "custom_message:pi-context/continuation"
    ])
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("will reset when idle"))
    expect(h.statuses.map((s) => s.text)).toContainEqual(expect.stringContaining("will reset when idle"))
    expect(h.statuses.at(-1)!.text).not.toContain("will reset when idle")
  })

  it("a follow-up queued after a waiting /wipe-memory arrives once, in the new window; one queued before it is answered first", async () => {
    h = await createHarness()
    const userTexts = () =>
      h.entries().flatMap((entry, index) => (entry.type === "message" && entry.message.role === "user" ? [{ index, text: JSON.stringify(entry.message.content) }] : []))
    h.script([
      async () => {
        await h.session.followUp("BEFORE-RESET: what did we decide?")
        // A human types slower than a millisecond: the follow-up after the command is queued later than it.
        await new Promise((resolve) => setTimeout(resolve, 5))
        await h.session.prompt("/wipe-memory")
        await new Promise((resolve) => setTimeout(resolve, 5))
        await h.session.followUp("AFTER-RESET: tell me what we decided")
        return call("context_remaining", {})
      },
      say("the answer is 4 (OLD WINDOW)"),
      say("we decided on 4 (BEFORE-RESET answered)"),
      say("from my notes: we decided on 4 (NEW WINDOW)")
    ])
    await h.prompt("what is 2+2?")
    await h.waitForIdle()
    expect(h.requests).toHaveLength(4)
    const markers = markerIndexes(h.entries())
    expect(markers).toHaveLength(1)
    const before = userTexts().filter((u) => u.text.includes("BEFORE-RESET"))
    const after = userTexts().filter((u) => u.text.includes("AFTER-RESET"))
    expect(before).toHaveLength(1)
    expect(after).toHaveLength(1)
    // What the user asked first happens first: the follow-up before the command, the reset, the follow-up after it.
    expect(before[0]!.index).toBeLessThan(markers[0]!)
    expect(after[0]!.index).toBeGreaterThan(markers[0]!)
    const fresh = conversation(h.requests[3]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh.join("\n")).not.toContain("what is 2+2?")
    expect(fresh.join("\n").split("AFTER-RESET").length - 1).toBe(1)
    for (const request of h.requests.slice(0, 3)) expect(conversation(request).join("\n")).not.toContain("AFTER-RESET")
    expect(boundaryViolation(h.entries())).toBeUndefined()
    expect(h.statuses.at(-1)!.text).not.toContain("will reset when idle")
    expect(h.errors).toEqual([])
  })

  it("a follow-up queued after a waiting /wipe-memory, with nothing queued before: the reset goes first", async () => {
    h = await createHarness()
    h.script([
      async () => {
        await h.session.prompt("/wipe-memory")
        await h.session.followUp("AFTER-RESET: tell me what we decided")
        return say("the answer is 4 (OLD WINDOW)")
      },
      say("from my notes (NEW WINDOW)")
    ])
    await h.prompt("what is 2+2?")
    await h.waitForIdle()
    expect(h.requests).toHaveLength(2)
    expect(markerIndexes(h.entries())).toHaveLength(1)
    const fresh = conversation(h.requests[1]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh.at(-1)).toContain("AFTER-RESET")
    expect(fresh.join("\n")).not.toContain("OLD WINDOW")
    expect(fresh.join("\n")).not.toContain("what is 2+2?")
    // Pi records the history tools, offered from the first reset on, as a new system message before the follow-up.
    expect(kinds(h.entries()).slice(-4)).toEqual(["custom_message:pi-context/continuation", "message:system", "message:user", "message:assistant"])
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("context reset (/wipe-memory)"))
  })

  it("/wipe-memory just before a prompt: marker, boot and continuation stay consecutive and the question is seen", async () => {
    h = await createHarness()
    h.script(raceScript())
    const wipe = h.session.prompt("/wipe-memory")
    const run = h.session.prompt("what is 2+2? (RACE)")
    await Promise.all([wipe, run])
    await h.waitForIdle()
    checkRace(h)
  })
})
