import { execFileSync } from "node:child_process"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, PlatformError } from "effect"
import { readNoteHead, readTexts, statPaths } from "../../src/notes/disk.ts"
import { tempDir } from "../support/tempDirs.ts"

const scratch = () => tempDir("pi-notes-disk-")

describe("reading the notes a walk found", () => {
  it("reads every note at once, without a trip through the file system's thread pool per note", () => {
    const home = scratch()
    writeFileSync(join(home, "a.md"), "# a\n")
    writeFileSync(join(home, "b.md"), "# b\n")
    // runSync throws on an effect that suspends, as a read through libuv's thread pool does.
    assert.deepStrictEqual(Effect.runSync(readTexts([join(home, "a.md"), join(home, "b.md")])), ["# a\n", "# b\n"])
  })

  it("does not follow a note swapped for a symbolic link after the walk: it reads as an error, not the file outside", () => {
    const home = scratch()
    const outside = scratch()
    writeFileSync(join(outside, "secret.md"), "secret")
    symlinkSync(join(outside, "secret.md"), join(home, "plan.md"))
    const [text] = Effect.runSync(readTexts([join(home, "plan.md")]))
    assert.isTrue(PlatformError.isPlatformError(text))
  })

  it("does not wait on a FIFO put where a note was, with no writer: it reads as empty", () => {
    const home = scratch()
    execFileSync("mkfifo", [join(home, "plan.md")])
    // A blocking open would wait for a writer forever, and take the process with it.
    assert.deepStrictEqual(Effect.runSync(readTexts([join(home, "plan.md")])), [""])
  })

  it("a note gone since the walk is NotFound", () => {
    const home = scratch()
    const [text] = Effect.runSync(readTexts([join(home, "gone.md")]))
    assert.isTrue(PlatformError.isPlatformError(text) && text.reason._tag === "NotFound")
  })
})

describe("reading the head of a large note", () => {
  it("gives its first bytes at once, a character cut at the end dropped, and never through a symbolic link", () => {
    const home = scratch()
    writeFileSync(join(home, "big.md"), `# Résumé\n${"x".repeat(10_000)}`)
    // "# R" is 3 bytes and "é" 2: 4 bytes end inside the "é".
    assert.strictEqual(Effect.runSync(readNoteHead(join(home, "big.md"), 4)), "# R")
    assert.strictEqual(Effect.runSync(readNoteHead(join(home, "big.md"), 11)), "# Résumé\n")
    symlinkSync(join(home, "big.md"), join(home, "link.md"))
    const error = Effect.runSync(Effect.flip(readNoteHead(join(home, "link.md"), 4)))
    assert.isTrue(PlatformError.isPlatformError(error))
  })
})

describe("looking at the paths a walk found", () => {
  it("gives each one's kind at once: a note's size and time, a folder, or Missing", () => {
    const home = scratch()
    writeFileSync(join(home, "a.md"), "12345")
    mkdirSync(join(home, "topic"))
    const kinds = Effect.runSync(statPaths([join(home, "a.md"), join(home, "topic"), join(home, "gone.md"), join(home, "a.md", "below")]))
    assert.deepStrictEqual(kinds.map((kind) => kind._tag), ["File", "Directory", "Missing", "Missing"])
    assert.strictEqual(kinds[0]!._tag === "File" ? kinds[0]!.bytes : -1, 5)
  })
})
