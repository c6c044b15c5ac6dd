import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { ofCustomType } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { dirsWith, filler, markers, renderMarker, smallWindow } from "../support/resetMarkers.ts"
import { bareWipe, say } from "../support/steps.ts"

/**
 * What the user is told is what the model was told, in Pi's real loop: one note count in every view, a
 * reminder whose turn also resets the window, and /compact when Pi refuses it before asking pi-context.
 */
const { contextWindow, lines } = smallWindow

const render = (h: Harness, entry: SessionEntry, expanded = false) => renderMarker(h, entry, expanded)

describe("what the user is told", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("one note count everywhere: the divider, the notes overview and doctor count a home's MAP.md among its notes", async () => {
    h = await createHarness()
    h.script([
      fauxAssistantMessage(
        [
          fauxToolCall("notes_write", { address: "MAP", content: "# MAP\n- checkpoint: where we are" }),
          fauxToolCall("notes_write", { address: "checkpoint", content: "# Checkpoint\nnext: go on" }),
          fauxToolCall("wipe_memory", {})
        ],
        { stopReason: "toolUse" }
      ),
      say("fresh start")
    ])
    await h.prompt("checkpoint and wipe")
    const [marker] = markers(h)
    expect(render(h, marker!)).toContain("w2 starts from 2 notes")
    await h.prompt("/pi-context notes")
    expect(h.notices.at(-1)!.message).toMatch(/^pi-context notes · 2 notes · root /)
    expect(h.notices.at(-1)!.message).toContain("session 2")
    await h.prompt("/pi-context doctor")
    expect(h.notices.at(-1)!.message).toMatch(/ok {3}notes home session: 2 notes, MAP\.md among them/)
  })

  it("a final warning whose turn also resets the window is still told, before the reset's own notice", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("fresh window")])
    // One prompt takes the window past the hard line: its request carries the final warning, and its reply's turn resets.
    await h.prompt(filler(8_500))
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    expect(markers(h)).toHaveLength(1)
    const messages = h.notices.map((n) => n.message)
    const warned = messages.findIndex((m) => m.startsWith("pi-context: w1 went past the hard line, which is at 2,000 tokens left: the model got its final warning, then w1 was reset in the same turn."))
    expect(warned).toBeGreaterThanOrEqual(0)
    expect(h.notices[warned]!.level).toBe("warning")
    expect(messages.findIndex((m) => m.includes("context reset"))).toBeGreaterThan(warned)
    expect(messages.filter((m) => m.includes("final warning"))).toHaveLength(1)
    expect(render(h, markers(h)[0]!)).toContain("no checkpoint, though warned")
  })

  it("a final warning the model answers with wipe_memory at once is told after the reset, and the divider knows of it", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": { ...lines, checkpointCheck: false } }), contextWindow })
    h.script([bareWipe(), say("fresh window")])
    // Past the warning line, not the hard line: the warning and the model's reset are committed in one append.
    await h.prompt(filler(4_000))
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    expect((markers(h)[0] as { data: { source: string } }).data.source).toBe("tool")
    const messages = h.notices.map((n) => n.message)
    expect(messages).toContainEqual(expect.stringMatching(/^pi-context: context almost full; final warning sent to the model with [\d,]+ tokens before the automatic reset; then w1 was reset in the same turn\.$/))
    // The divider knows the model was warned, though the warning reached the branch in the reset's own append.
    expect(render(h, markers(h)[0]!)).toContain("no checkpoint, though warned")
  })

  it("when Pi finds nothing to compact before asking pi-context, pi-context says that is not the reason, and what to do", async () => {
    // Pi's default keeps the last 20,000 tokens: a small session has nothing Pi would summarise, and Pi says so first.
    h = await createHarness()
    h.script([say("hi")])
    await h.prompt("hello")
    const error = await h.session.compact().then(() => undefined, (e: Error) => e.message)
    expect(error).toBe("Nothing to compact (session too small)")
    const notice = h.notices.at(-1)!
    expect(notice.level).toBe("warning")
    expect(notice.message).toBe(
      "pi-context: Pi says \"Nothing to compact (session too small)\", but that is not why /compact did nothing: native compaction never runs here: " +
        "pi-context owns this context window, and resets it from the model's notes instead of summarising it. " +
        "Run /wipe-memory to start a fresh window now, or /pi-context off to let Pi compact this branch."
    )
    // Off on a branch without resets, Pi's compaction is Pi's: its own reason stands.
    await h.prompt("/pi-context off")
    const before = h.notices.length
    await h.session.compact().catch(() => undefined)
    expect(h.notices.slice(before).filter((n) => n.message.includes("Pi says"))).toEqual([])
  })

  it("the boot before any request is what the model will get, not what it got; the overview offers note versions only when they are there", async () => {
    h = await createHarness()
    await h.prompt("/pi-context notes boot")
    expect(h.notices.at(-1)!.message).toMatch(/^What the model will get: the boot of w1, not sent yet \(the window's first request carries it\)\n## Context window/)
    // No window has ended with a note yet, so there is no repository of versions: nothing to offer.
    await h.prompt("/pi-context notes")
    expect(h.notices.at(-1)!.message).not.toContain("Versions:")
    h.script([say("hello")])
    await h.prompt("hi")
    await h.prompt("/pi-context notes boot")
    expect(h.notices.at(-1)!.message).toMatch(/^What the model got: the boot of w1, as sent\n/)
  })
})
