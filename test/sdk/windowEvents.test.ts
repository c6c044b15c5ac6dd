import { readFileSync } from "node:fs"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { CustomType } from "../../src/kernel/protocol.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import { tracePath } from "../../src/trace/TraceLive.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const say = (text: string) => fauxAssistantMessage(text)

describe("window events in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the trace follows each window a reset opens: after the model's wipe_memory and after /wipe-memory, every line is the new window's", async () => {
    h = await createHarness({ settings: { "pi-context": { traceLevel: "debug" } } })
    h.script([call("notes_write", { address: "plan", content: "step one\n" }), call("wipe_memory", {}), say("fresh window")])
    await h.prompt("plan, then wipe")
    h.script([say("still here")])
    await h.prompt("go on")
    await h.prompt("/wipe-memory")
    h.script([say("third window")])
    await h.prompt("and again")

    const sessionId = h.session.sessionManager.getSessionId()
    const markers = (h.branch() as ReadonlyArray<any>)
      .filter((entry) => entry.type === "custom" && entry.customType === CustomType.resetMarker)
      .map((entry) => entry.data.windowId as string)
    expect(markers).toHaveLength(2)
    const lines = readFileSync(tracePath(h.dirs.agentDir, sessionId), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    const commits = lines.flatMap((line, i) => (line.event === "boundary.commit" ? [i] : []))
    expect(lines.filter((line) => line.event === "boundary.commit").map((line) => [line.source, line.to])).toEqual([["tool", markers[0]], ["command", markers[1]]])
    // Either path's boundary is traced in the window it ends (one commit for both); every later line is the new window's.
    const windowOf = (i: number) => [lines[i].windowId, lines[i].window]
    const expected = lines.map((_, i) =>
      i <= commits[0]! ? [rootWindowId(sessionId), "w1"] : i <= commits[1]! ? [markers[0], "w2"] : [markers[1], "w3"]
    )
    expect(lines.map((_, i) => windowOf(i))).toEqual(expected)
    // Each window has lines of its own after its boundary (the debug level traces every settlement).
    expect(commits[1]! - commits[0]!).toBeGreaterThan(1)
    expect(lines.length).toBeGreaterThan(commits[1]! + 1)
    expect(h.errors).toEqual([])
  })
})
