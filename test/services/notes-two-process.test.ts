import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, FileSystem } from "effect"
import { parseNote } from "../../src/notes/frontmatter.ts"
import * as NotesStoreLive from "../../src/notes/NotesStoreLive.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"

const appender = fileURLToPath(new URL("../support/notesAppender.ts", import.meta.url))
const perProcess = 200

const runAppender = (root: string, tag: string) =>
  Effect.callback<{ readonly code: number | null; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [appender, root, tag, String(perProcess)], { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    child.on("close", (code) => resume(Effect.succeed({ code, stderr })))
  })

describe("notes across processes", () => {
  it.live("two processes each applying 200 updates to one note lose none and leave it whole", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const store = yield* NotesStore
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-notes-2p-" })
      const identity = { root, sessionId: "two-process", projectKey: "p", agentName: "pi", modelSlug: "m" }
      yield* store.write(identity, "@project/shared", "# Shared log\n<!-- end -->")

      const results = yield* Effect.all([runAppender(root, "left"), runAppender(root, "right")], { concurrency: 2 })
      for (const result of results) assert.deepStrictEqual(result, { code: 0, stderr: "" })

      const text = yield* fs.readFileString(`${root}/projects/p/shared.md`)
      const note = parseNote(text)
      assert.isDefined(note.frontmatter.created)
      assert.isDefined(note.frontmatter.updated)
      const lines = note.body.split("\n")
      assert.strictEqual(lines[0], "# Shared log")
      assert.strictEqual(lines.at(-1), "<!-- end -->")
      const entries = lines.slice(1, -1)
      assert.strictEqual(entries.length, 2 * perProcess)
      for (const tag of ["left", "right"]) {
        const mine = entries.filter((line) => line.startsWith(`${tag}-`))
        // Each process's own appends stay in order: nothing lost, nothing repeated.
        assert.deepStrictEqual(mine, Array.from({ length: perProcess }, (_, i) => `${tag}-${i}`))
      }
      const leftovers = (yield* fs.readDirectory(`${root}/projects/p`)).filter((name) => name !== "shared.md")
      assert.deepStrictEqual(leftovers, [])
    }).pipe(Effect.provide(NotesStoreLive.layerTest)), 120_000)
})
