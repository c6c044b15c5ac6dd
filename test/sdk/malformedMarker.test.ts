import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { call, say } from "../support/steps.ts"

/** Another extension whose `/forge` appends a pi-context reset marker whose data does not decode (no window id). */
const forger = (pi: ExtensionAPI) => {
  pi.registerCommand("forge", {
    description: "append a reset marker without a window id",
    handler: async () => pi.appendEntry("pi-context/reset-marker", { source: "tool" })
  })
}

const lastNotice = (h: Harness, prefix: string) => h.notices.filter((n) => n.message.startsWith(prefix)).at(-1)!.message

describe("a reset marker that does not decode", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("opens no window: the current window, /pi-context windows and history_windows all stay in w2, and the request sends nothing of w1", async () => {
    h = await createHarness({ settings: { compaction: { enabled: false, keepRecentTokens: 1 } }, extraExtensions: [forger] })
    h.script([say("SECRET-OF-W1"), say("fresh"), call("history_windows", {}), say("seen")])
    await h.prompt("first")
    await h.prompt("/wipe-memory")
    await h.prompt("in the second window")
    await h.prompt("/forge")
    await h.prompt("list the windows")
    await h.prompt("/pi-context status")
    await h.prompt("/pi-context windows")

    const status = h.notices.map((n) => n.message).filter((m) => m.includes("\nwindow: w")).at(-1)!
    const [, ordinal, currentId] = /\nwindow: w(\d+) \(id (\S+),/.exec(status)!
    expect(ordinal).toBe("2")
    expect(currentId).toMatch(/^pcx:[0-9a-z]+:[0-9a-f]{8}$/)

    expect(lastNotice(h, "pi-context windows")).toMatch(/^pi-context windows · 2 on this branch, current w2/)

    const toolResult = (h.branch() as ReadonlyArray<any>).filter((e) => e.type === "message" && e.message.toolName === "history_windows").at(-1)
    const text: string = toolResult.message.content.map((c: { text?: string }) => c.text ?? "").join("")
    expect(text).toContain("2 window(s) on the active branch")
    expect(text.split("\n").find((line) => line.includes("[current]"))).toMatch(new RegExp(`^${currentId}\\b`))

    // The window's own boot still starts the request: nothing from before w2's marker reaches the model.
    const last = conversation(h.requests.at(-1)!)
    expect(last[0]).toMatch(/^user: ## Context window/)
    expect(last.join("\n")).not.toContain("SECRET-OF-W1")
  })
})
