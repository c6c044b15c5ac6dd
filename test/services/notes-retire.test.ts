import { assert, describe, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { NotesHomes } from "../../src/notes/NotesHomes.ts"
import { gitIn, historyLayer, historySession, tempRoot } from "../support/notesVersionsFixtures.ts"

const text = (outcome: { readonly _tag: string; readonly text: string }, tag = "Ok") => {
  assert.strictEqual(outcome._tag, tag, outcome.text)
  return outcome.text
}

describe("retiring notes", () => {
  it.effect("a retired note leaves notes_list and the boot for the wastebasket, and stays in the history", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-retire-")
      const { session, tool, endWindow, withHistory } = historySession(root)
      text(yield* tool("notes_write", { address: "@project/old-idea", content: "# Old idea\nwe tried it\n" }))
      text(yield* tool("notes_write", { address: "@project/current", content: "# Current\n" }))
      yield* endWindow(1)
      const kept = gitIn(root, "rev-parse", "--short", "HEAD").trim()

      const retired = text(yield* tool("notes_update", { address: "@project/old-idea", retire: true }))
      assert.include(retired, "Retired @project/old-idea.md")
      const listed = text(yield* tool("notes_list", {}))
      assert.notInclude(listed, "old-idea")
      assert.include(listed, "@project/current.md")
      const homes = yield* NotesHomes
      const identity = yield* Effect.provide(homes.identity, session.layer)
      const snapshot = yield* Effect.provide(homes.snapshot(), session.layer)
      const project = snapshot.homes.find((home) => home.home === "project")
      assert.deepStrictEqual(project?._tag === "Available" ? project.recent.map((row) => row.address) : [], ["@project/current.md"])

      const basket = text(yield* tool("notes_list", { wastebasket: true }))
      assert.include(basket, "Retired notes")
      assert.include(basket, "- @project/old-idea.md · ")
      assert.include(text(yield* tool("notes_list", { wastebasket: true, home: "@user" })), "The wastebasket is empty.")

      yield* endWindow(2)
      const files = gitIn(root, "show", "--name-status", "--no-renames", "--format=%s", "HEAD").trim().split("\n")
      assert.strictEqual(files[0], "w2 of session histsess: +1 ~0 −1")
      assert.include(files, `D\tprojects/${identity.projectKey}/old-idea.md`)
      assert.include(files, `A\twastebasket/projects/${identity.projectKey}/old-idea.md`)
      assert.include(yield* withHistory((history) => history.history("@project/old-idea")), "(wastebasket)")

      // Brought back from the history, it leaves the wastebasket.
      yield* withHistory((history) => history.restore("@project/old-idea", kept))
      assert.include(text(yield* tool("notes_read", { address: "@project/old-idea" })), "we tried it")
      assert.isFalse(existsSync(join(root, "wastebasket", "projects", identity.projectKey, "old-idea.md")))
      assert.strictEqual(gitIn(root, "status", "--porcelain").trim(), "")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("retire refuses a missing note and a request that also edits", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-retire-refuse-")
      const { tool } = historySession(root)
      assert.include(text(yield* tool("notes_update", { address: "nothing", retire: true }), "Failed"), "there is no note at nothing.md")
      text(yield* tool("notes_write", { address: "plan", content: "x" }))
      assert.include(
        text(yield* tool("notes_update", { address: "plan", retire: true, edits: [{ oldText: "x", newText: "y" }] }), "Failed"),
        "retire cannot be combined with edits"
      )
      assert.include(text(yield* tool("notes_read", { address: "plan" })), "x")
    }).pipe(Effect.provide(historyLayer())))
})
