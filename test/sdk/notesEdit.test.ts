import { readFileSync, statSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { say } from "../support/steps.ts"

describe("/pi-context notes edit", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("opens the note in Pi's editor and writes the edited text back", async () => {
    const titles: Array<string> = []
    h = await createHarness({
      editor: (title, prefill) => {
        titles.push(title)
        return `${prefill ?? ""}\nedited by the user`
      }
    })
    h.script([fauxAssistantMessage([fauxToolCall("notes_write", { address: "plan", content: "# Plan\nstep one" })], { stopReason: "toolUse" }), say("ok")])
    await h.prompt("write a note")
    await h.prompt("/pi-context notes edit plan")
    expect(titles).toEqual(["plan.md (save to write it back)"])
    expect(h.notices.at(-1)!.message).toMatch(/^pi-context: saved plan\.md \(\d+ B\)\.$/)
    await h.prompt("/pi-context notes read plan")
    expect(h.notices.at(-1)!.message).toContain("step one\nedited by the user")
  })

  it("a save with the text as it was (Pi's editor drops the final newline) leaves the note alone: not rewritten, no new time", async () => {
    h = await createHarness({ editor: (_title, prefill) => (prefill ?? "").replace(/\n+$/, "") })
    h.script([fauxAssistantMessage([fauxToolCall("notes_write", { address: "plan", content: "# Plan\nstep one\n" })], { stopReason: "toolUse" }), say("ok")])
    await h.prompt("write a note")
    const file = join(h.dirs.notesRoot, "sessions", h.session.sessionId, "plan.md")
    const before = readFileSync(file, "utf8")
    const past = new Date(Date.now() - 60_000)
    utimesSync(file, past, past)
    await h.prompt("/pi-context notes edit plan")
    expect(h.notices.at(-1)!.message).toBe("pi-context: plan.md unchanged.")
    expect(readFileSync(file, "utf8")).toBe(before)
    expect(statSync(file).mtimeMs).toBe(past.getTime())
  })

  it("an edit keeps the note's final newline, which Pi's editor drops", async () => {
    h = await createHarness({ editor: (_title, prefill) => `${(prefill ?? "").replace(/\n+$/, "")}\nstep two` })
    h.script([fauxAssistantMessage([fauxToolCall("notes_write", { address: "plan", content: "# Plan\nstep one\n" })], { stopReason: "toolUse" }), say("ok")])
    await h.prompt("write a note")
    await h.prompt("/pi-context notes edit plan")
    const file = join(h.dirs.notesRoot, "sessions", h.session.sessionId, "plan.md")
    expect(readFileSync(file, "utf8").endsWith("step one\nstep two\n")).toBe(true)
  })
})
