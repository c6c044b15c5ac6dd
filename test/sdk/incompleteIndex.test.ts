import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

describe("a note home that cannot be read, in Pi's agent loop", () => {
  // One notes root per file: PI_CONTEXT_NOTES_ROOT is read once per process.
  const dirs = makeDirs()
  let h: Harness
  afterEach(async () => h?.dispose())
  // A session's background notes commit may still be writing into the root: retry as Node does for ENOTEMPTY.
  afterAll(() => rmSync(dirs.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))

  /** The user home is a file, not a folder: reading it fails, whoever runs the test. */
  const breakUserHome = () => {
    rmSync(join(dirs.notesRoot, "user"), { recursive: true, force: true })
    writeFileSync(join(dirs.notesRoot, "user"), "not a folder")
  }
  const incomplete = (h: Harness) => h.notices.filter((notice) => notice.message.includes("notes index incomplete"))

  it("one incomplete-index notice per boot: at start, and once for each reset", async () => {
    h = await createHarness({ dirs })
    breakUserHome()
    h.script([say("one"), checkpointAndWipe(), say("fresh")])
    await h.prompt("hello")
    const atStart = incomplete(h).length
    await h.prompt("wipe")
    expect(incomplete(h).length - atStart).toBe(1)
    expect(incomplete(h).at(-1)!.message).toContain("for user")
    await h.prompt("/wipe-memory")
    expect(incomplete(h).length - atStart).toBe(2)
    expect(h.errors).toEqual([])
  })
})
