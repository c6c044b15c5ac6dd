import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { dirsWith } from "../support/resetMarkers.ts"

/** What docs/settings.md and the README say: an edit of settings.json applies after Pi's /reload, not before. */
describe("a settings edit during a session", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  const hardLineIn = (status: string) => /^hard line: ([\d,]+) tokens left/m.exec(status)?.[1]

  it("applies after Pi's /reload: until then the session keeps the values it read", async () => {
    const dirs = dirsWith({ "pi-context": { hardLine: 8_000 } })
    h = await createHarness({ dirs, contextWindow: 64_000 })
    h.script([fauxAssistantMessage("one"), fauxAssistantMessage("two")])
    await h.prompt("hi")
    const status = async () => {
      await h.prompt("/pi-context status")
      return h.notices.at(-1)!.message
    }
    expect(hardLineIn(await status())).toBe("8,000")
    writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({ "pi-context": { hardLine: 9_000 } }))
    await h.prompt("again")
    expect(hardLineIn(await status())).toBe("8,000")
    await h.session.reload()
    expect(hardLineIn(await status())).toBe("9,000")
    expect(h.errors).toEqual([])
  })
})
