import { rmSync, writeFileSync } from "node:fs"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { say } from "../support/steps.ts"

describe("a notes root that is a file, in Pi's agent loop", () => {
  // One notes root per file: PI_CONTEXT_NOTES_ROOT is read once per process.
  const dirs = makeDirs()
  let h: Harness
  afterEach(async () => h?.dispose())
  afterAll(() => rmSync(dirs.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))

  it("tells the real cause first, with its fix, once, and not an incomplete index before it", async () => {
    rmSync(dirs.notesRoot, { recursive: true, force: true })
    writeFileSync(dirs.notesRoot, "a file, not a folder")
    h = await createHarness({ dirs })
    const told = () => h.notices.map((notice) => notice.message).filter((message) => /notes/.test(message))
    await vi.waitFor(() => expect(told().length).toBeGreaterThan(0), { timeout: 15_000 })
    h.script([say("hello back")])
    await h.prompt("hello")
    expect(told()[0]).toBe(
      "pi-context cannot write notes: the notes root is a file, not a folder. " +
        "Point pi-context.notesRoot (or PI_CONTEXT_NOTES_ROOT) at a folder you can write, or fix its permissions; /pi-context doctor shows where it is."
    )
    expect(told().filter((message) => message.startsWith("pi-context cannot write notes"))).toHaveLength(1)
    expect(told().filter((message) => message.includes("notes index incomplete"))).toEqual([])
    expect(h.errors).toEqual([])
  })
})
