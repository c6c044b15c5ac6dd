import { afterEach, describe, expect, it } from "vitest"
import { conversation } from "../support/entries.ts"
import { dirsWith, filler, markers, renderMarker, smallWindow } from "../support/resetMarkers.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

/** `/pi-context on` after a while off, in Pi's real loop: a window that grew past its hard line meanwhile ends at once. */
const { contextWindow, lines } = smallWindow
const render = renderMarker

describe("/pi-context off, then on", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("/pi-context on in a window that grew past its hard line while off ends it at once, as a hard-line reset, and says the next prompt starts fresh", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("a reply past the hard line, while off"), say("fresh window")])
    await h.prompt("hello")
    await h.prompt("/pi-context off")
    await h.prompt(filler(9_000))
    expect(markers(h)).toHaveLength(0)
    await h.prompt("/pi-context on")
    expect(h.notices.map((n) => n.message)).toContainEqual(
      "pi-context is on: this window grew past its hard line while it was off, so it ends now; the next prompt starts fresh from your notes."
    )
    const [marker] = markers(h)
    expect((marker as { data: Record<string, any> }).data.source).toBe("hard-line")
    expect(render(h, marker!)).toContain("context reset: hard line reached")
    // Unclamped: the window had grown past its size.
    expect(Number(/w1 peaked at (\d+)%/.exec(render(h, marker!))![1])).toBeGreaterThan(100)
    await h.prompt("after")
    expect(conversation(h.requests.at(-1)!)[0]).toMatch(/^user: ## Context window/)
    // The 9,000-token message is gone from the new window; the hard line's digest quotes only an excerpt of it.
    expect(conversation(h.requests.at(-1)!).join("\n").length).toBeLessThan(4 * 3_000)
    expect(h.requests).toHaveLength(3)
    expect(h.errors).toEqual([])
  })

  it("/pi-context on in a window under its hard line only turns pi-context on", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok")])
    await h.prompt("hello")
    await h.prompt("/pi-context off")
    await h.prompt("/pi-context on")
    expect(h.notices.at(-1)!.message).toBe("pi-context is on: context windows reset from your notes instead of compacting.")
    expect(markers(h)).toHaveLength(0)
  })


  it("while off on a branch with resets, one notice when the window passes the point where Pi would have compacted", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines, compaction: { reserveTokens: 3_000 } }), contextWindow })
    h.script([checkpointAndWipe(), say("fresh"), say("small"), say("big one"), say("bigger")])
    await h.prompt("checkpoint and wipe")
    await h.prompt("/pi-context off")
    const past = () => h.notices.filter((n) => n.message.includes("past the point where Pi would have compacted"))
    await h.prompt("a small question")
    expect(past()).toHaveLength(0)
    await h.prompt(filler(8_000))
    await h.prompt("and another")
    expect(past().map((n) => n.message)).toEqual([
      expect.stringMatching(/^pi-context is off, and Pi's compaction stays cancelled on this branch: this window \(~?\d+%\) is past the point where Pi would have compacted\. \/wipe-memory starts a fresh window from your notes; \/pi-context on resets it by itself\.$/)
    ])
    expect(past()[0]!.level).toBe("warning")
  })
})
