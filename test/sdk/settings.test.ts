import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"

describe("settings pi-context cannot use, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("names each unknown or mistyped key once, with where it was found, and doctor lists them", async () => {
    const dirs = makeDirs()
    mkdirSync(dirs.agentDir, { recursive: true })
    // Written as text: JSON.stringify cannot write 1e400.
    writeFileSync(join(dirs.agentDir, "settings.json"), `{ "pi-context": { "hardline": 12000, "enabeld": true, "agentName": 7, "warningLine": 1e400 } }`)
    h = await createHarness({ dirs })
    h.script([fauxAssistantMessage("one"), fauxAssistantMessage("two")])
    await h.prompt("hi")
    await h.prompt("again")
    const settingsNotices = h.notices.map((notice) => notice.message).filter((message) => message.startsWith("pi-context: global settings:"))
    expect(settingsNotices).toEqual([
      "pi-context: global settings: pi-context.hardline = 12000 is not a pi-context setting (did you mean hardLine?); it is ignored.",
      "pi-context: global settings: pi-context.enabeld = true is not a pi-context setting (did you mean enabled?); it is ignored.",
      "pi-context: global settings: pi-context.warningLine = 1e400 is too large; using 28672.",
      "pi-context: global settings: pi-context.agentName = 7 is not a name (a string); using \"pi\"."
    ])
    await h.prompt("/pi-context doctor")
    const doctor = h.notices.at(-1)!.message
    expect(doctor).toMatch(/^FAIL settings: .*pi-context\.hardline.*pi-context\.enabeld.*warningLine = 1e400.*agentName = 7/m)
    expect(h.errors).toEqual([])
  })
})
