import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

describe("a note home unreadable from the start, in Pi's agent loop", () => {
  // One notes root per file: PI_CONTEXT_NOTES_ROOT is read once per process.
  const dirs = makeDirs()
  let h: Harness
  afterEach(async () => h?.dispose())
  afterAll(() => rmSync(dirs.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))
  const incomplete = (h: Harness) => h.notices.filter((notice) => notice.message.includes("notes index incomplete"))

  it("the root boot's notice comes when that boot is written, and the first reset adds one of its own, never a deferred second", async () => {
    mkdirSync(dirs.notesRoot, { recursive: true })
    writeFileSync(join(dirs.notesRoot, "user"), "not a folder")
    h = await createHarness({ dirs })
    // Start-up writes the root boot in the background of session_start: its notice comes with it, before any prompt.
    await vi.waitFor(() => expect(incomplete(h)).toHaveLength(1), { timeout: 15_000 })
    h.script([say("one"), checkpointAndWipe(), say("fresh")])
    await h.prompt("hello")
    expect(incomplete(h)).toHaveLength(1)
    await h.prompt("wipe")
    expect(incomplete(h)).toHaveLength(2)
    expect(incomplete(h).map((notice) => notice.message)).toEqual([
      "pi-context: notes index incomplete for user; the boot asks the model to retry with notes_list.",
      "pi-context: notes index incomplete for user; the boot asks the model to retry with notes_list."
    ])
  })
})
