import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { gitIn, historyLayer, historySession, tempRoot } from "../support/notesVersionsFixtures.ts"

const text = (outcome: { readonly _tag: string; readonly text: string }) => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

/** A notes root, and a project checkout whose clone already carries a shared note. */
const setup = Effect.gen(function*() {
  const base = yield* tempRoot("pi-project-notes-")
  const root = join(base, "notes")
  const project = join(base, "project")
  mkdirSync(join(project, ".git"), { recursive: true })
  mkdirSync(join(project, ".pi", "notes"), { recursive: true })
  writeFileSync(join(project, ".pi", "notes", "shared.md"), "# Shared\nfrom a teammate\n")
  mkdirSync(root)
  return { root, project }
})

const session = (root: string, project: string, trusted: boolean, projectNotes: string | undefined) =>
  historySession(root, {
    cwd: project,
    projectTrusted: trusted,
    settings: { "pi-context": { notesRoot: root, ...(projectNotes === undefined ? {} : { projectNotes }) } }
  })

describe("shared project notes", () => {
  it.effect("in a trusted project, the project home is the project's .pi/notes, outside the notes history", () =>
    Effect.gen(function*() {
      const { root, project } = yield* setup
      const { tool, endWindow, withHistory } = session(root, project, true, "in-project")
      text(yield* tool("notes_write", { address: "@project/architecture", content: "# Architecture\n" }))
      text(yield* tool("notes_write", { address: "plan", content: "# Plan\n" }))
      assert.isTrue(existsSync(join(project, ".pi", "notes", "architecture.md")))
      assert.isFalse(existsSync(join(root, "projects")))
      const listed = text(yield* tool("notes_list", { home: "@project" }))
      assert.include(listed, "@project/shared.md")
      assert.include(listed, "@project/architecture.md")

      yield* endWindow(1)
      assert.deepStrictEqual(gitIn(root, "show", "--name-only", "--format=", "HEAD").trim().split("\n"), ["sessions/hist-session-0001/plan.md"])
      assert.include((yield* withHistory((history) => history.describe)).text, "in-project project home is committed with the project")
      assert.include((yield* withHistory((history) => Effect.flip(history.history("@project")))).message, "git log -- .pi/notes")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("in an untrusted project the setting is ignored: the checkout's notes never reach the model", () =>
    Effect.gen(function*() {
      const { root, project } = yield* setup
      const { tool } = session(root, project, false, "in-project")
      text(yield* tool("notes_write", { address: "@project/architecture", content: "# Architecture\n" }))
      assert.isFalse(existsSync(join(project, ".pi", "notes", "architecture.md")))
      const listed = text(yield* tool("notes_list", { home: "@project" }))
      assert.include(listed, "@project/architecture.md")
      assert.notInclude(listed, "shared")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("without the setting a trusted project keeps its notes in the notes root", () =>
    Effect.gen(function*() {
      const { root, project } = yield* setup
      const { tool } = session(root, project, true, undefined)
      text(yield* tool("notes_write", { address: "@project/architecture", content: "# Architecture\n" }))
      assert.isFalse(existsSync(join(project, ".pi", "notes", "architecture.md")))
      assert.notInclude(text(yield* tool("notes_list", { home: "@project" })), "shared")
    }).pipe(Effect.provide(historyLayer())))
})
