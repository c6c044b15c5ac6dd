import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import type { SessionSignals } from "../../src/window/signals.ts"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { call, checkpointAndWipe, say } from "../support/steps.ts"

describe("/pi-context report, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  const json = async (h: Harness): Promise<SessionSignals> => {
    await h.prompt("/pi-context report --json")
    return JSON.parse(h.notices.at(-1)!.message) as SessionSignals
  }

  it("says per window whether the model checkpointed, picked up from its notes, redid work, and whether the user repeated a request", async () => {
    h = await createHarness({ tools: ["read", "bash"] })
    mkdirSync(join(h.dirs.cwd, "src"), { recursive: true })
    writeFileSync(join(h.dirs.cwd, "src", "parser.ts"), "export const parse = () => 1\n")
    const work = () => fauxAssistantMessage([fauxToolCall("read", { path: "src/parser.ts" }), fauxToolCall("bash", { command: "echo tests pass" })], { stopReason: "toolUse" })
    h.script([work(), checkpointAndWipe(), work(), say("fixed"), call("notes_write", { address: "plan", content: "# Plan\nnext" }), say("noted")])
    await h.prompt("fix the parser")
    // The new window begins at the reset: it reads the same file and reruns the same command; the user asks again.
    await h.prompt("fix the parser")
    await h.prompt("note the plan")
    const signals = await json(h)
    expect(signals.windows).toHaveLength(2)
    const [first, second] = signals.windows
    expect(first).toMatchObject({ w: 1, end: "wipe_memory", checkpointWritten: true, filesReread: 0, commandsRerun: 0, userRepeated: false })
    expect(first!.notesReadAfterReset).toBeUndefined()
    // The model reset well before Pi would have compacted: no compaction summary was avoided.
    expect(first!.tokensAvoided).toBeUndefined()
    expect(second).toMatchObject({ w: 2, end: "open", notesReadAfterReset: true, filesReread: 1, commandsRerun: 1, userRepeated: true })
    expect(second!.bootTokens).toBeGreaterThan(100)
    expect(signals.totals).toMatchObject({ resets: 1, checkpointed: 1, notesReadAfterReset: 1, filesReread: 1, commandsRerun: 1, userRepeated: 1 })
    // No model was called for it.
    expect(h.faux.getPendingResponseCount()).toBe(0)

    await h.prompt("/pi-context report")
    const text = h.notices.at(-1)!.message
    expect(text).toContain("pi-context report: 1 reset")
    expect(text).toContain("w1 (ended by wipe_memory) · checkpointed")
    expect(text).toContain("w2 (open) · picked up from its notes · re-read 1 file · reran 1 command · you repeated a request")
    // The windows view marks the same: how the window that began at the reset picked up.
    await h.prompt("/pi-context windows")
    expect(h.notices.at(-1)!.message).toMatch(/boot [\d,]+ tokens · read its notes · re-read 1 file/)
  })

  it("a window that began at a reset and went straight to work did not read its notes; an unknown argument is told", async () => {
    h = await createHarness({ tools: ["bash"] })
    h.script([say("ok"), say("straight to work")])
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    await h.prompt("go on")
    const [, second] = (await json(h)).windows
    // The root window wrote no note, so the boot quoted none, and the model read none.
    expect(second).toMatchObject({ w: 2, notesReadAfterReset: false, userRepeated: false })
    await h.prompt("/pi-context windows")
    expect(h.notices.at(-1)!.message).toContain("did not read its notes")
    await h.prompt("/pi-context report --csv")
    expect(h.notices.at(-1)).toMatchObject({ level: "warning", message: expect.stringContaining('unknown argument "--csv"') })
  })

  it("after two windows in a row went on without the notes, the next boot says so first, as a fact", async () => {
    h = await createHarness()
    h.script([say("one"), say("two"), say("three"), say("four")])
    await h.prompt("hello")
    for (const next of ["go on", "and on", "once more"]) {
      await h.prompt("/wipe-memory")
      await h.prompt(next)
    }
    const boots = h.requests.map((request) => conversation(request)[0]!).filter((first) => first.startsWith("user: ## Context window"))
    // w2's and w3's boots have nothing to say; w4's, after w2 and w3 both went on without reading notes, does.
    expect(boots).toHaveLength(4)
    for (const boot of boots.slice(0, 3)) expect(boot).not.toContain("without reading your notes")
    expect(boots[3]).toContain("In w2 and w3 you went on without reading your notes after the reset. This time, start from them.")
    expect(boots[3]!.indexOf("without reading your notes")).toBeLessThan(boots[3]!.indexOf("## Note homes"))
  })
})
