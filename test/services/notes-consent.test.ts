import { assert, layer } from "@effect/vitest"
import { Effect, FileSystem, Path } from "effect"
import type { ToolOutcome } from "../../src/kernel/toolOutcome.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import { NotesHomes } from "../../src/notes/NotesHomes.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"

/** A session whose user answers `answer`, on a temp notes root, with no note versions running. */
const session = (answer: "yes" | "no") =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-consent-" })
    const fake = makeFakeSession({ sessionId: "consent-session", cwd: root, settings: { "pi-context": { notesRoot: root } }, answer })
    const call = (tool: keyof typeof notesToolHandlers, params: unknown) => Effect.provide(notesToolHandlers[tool](params), fake.layer)
    return { fs, path, root, fake, call }
  })

const code = (outcome: ToolOutcome): string => (outcome._tag === "Failed" ? outcome.code : "ok")

layer(NotesHomesLive.layerTest)("the consent gate without the note versions", (it) => {
  it.effect("an allowed rewrite first keeps the note's text, hand edits included, in its home's wastebasket, and says where", () =>
    Effect.gen(function*() {
      const { fs, path, root, fake, call } = yield* session("yes")
      yield* fs.makeDirectory(path.join(root, "user"), { recursive: true })
      yield* fs.writeFileString(path.join(root, "user", "preferences.md"), "# Preferences\n- MY OWN RULE\n")
      const rewrite = yield* call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" })
      assert.strictEqual(code(rewrite), "ok", rewrite.text)
      assert.include(rewrite.text, "Its text before is kept in @user's wastebasket, at wastebasket/user/preferences.md (not in the note versions: they are not running)")
      assert.strictEqual(yield* fs.readFileString(path.join(root, "wastebasket", "user", "preferences.md")), "# Preferences\n- MY OWN RULE\n")
      assert.include(fake.notices.at(-1)!.message, "you allowed the rewrite of @user/preferences.md")
      // Asked once, with the diff.
      assert.strictEqual(fake.asked.length, 1)
      assert.include(fake.asked[0]!.message, "- - MY OWN RULE\n+ spaces")
    }))

  it.effect("a protected note allowed as new that appears before the write holds its lock keeps its text", () =>
    Effect.gen(function*() {
      const { fs, path, root, fake, call } = yield* session("no")
      const homes = yield* NotesHomes
      const file = path.join(root, "user", "preferences.md")
      // The user saves the note by hand just after the gate found no note there.
      const racing = NotesHomes.of({
        ...homes,
        noteState: (address) =>
          Effect.tap(homes.noteState(address), () => Effect.orDie(Effect.andThen(fs.makeDirectory(path.dirname(file), { recursive: true }), fs.writeFileString(file, "- MY OWN RULE\n"))))
      })
      const rewrite = yield* Effect.provideService(call("notes_write", { address: "@user/preferences", content: "x\n" }), NotesHomes, racing)
      assert.strictEqual(code(rewrite), "invalid_argument", rewrite.text)
      assert.include(rewrite.text, "@user/preferences.md appeared while the write was on its way, so it keeps its text")
      assert.strictEqual(yield* fs.readFileString(file), "- MY OWN RULE\n")
      assert.strictEqual(fake.asked.length, 0)
    }))

  it.effect("what the gate cannot decide is refused, saying why: a protected note whose existence the file system does not tell", () =>
    Effect.gen(function*() {
      const { fs, path, root, fake, call } = yield* session("yes")
      // The user home's folder is a file: whether a note is there cannot be told.
      yield* fs.writeFileString(path.join(root, "user"), "not a folder\n")
      const rewrite = yield* call("notes_write", { address: "@user/preferences", content: "x\n" })
      assert.strictEqual(code(rewrite), "protected")
      assert.include(rewrite.text, "pi-context could not tell whether @user/preferences.md exists")
      assert.strictEqual(fake.asked.length, 0)
    }))
})
