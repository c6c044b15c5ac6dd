/**
 * Child process for the two-process notes test: applies `count` appends to
 * one note through the real NotesStore layer, each a notes_update that
 * replaces the end anchor with a numbered line and the anchor.
 * Usage: node notesAppender.ts <root> <tag> <count>
 */
import { Effect } from "effect"
import * as NotesStoreLive from "../../src/notes/NotesStoreLive.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"

export const EndAnchor = "<!-- end -->"

const [root, tag, count] = process.argv.slice(2)
const identity = { root: root!, sessionId: "two-process", projectKey: "p", agentName: "pi", modelSlug: "m" }

const program = Effect.gen(function*() {
  const store = yield* NotesStore
  for (let i = 0; i < Number(count); i++) {
    yield* store.update(identity, "@project/shared", [{ oldText: EndAnchor, newText: `${tag}-${i}\n${EndAnchor}` }])
  }
}).pipe(Effect.provide(NotesStoreLive.layer))

Effect.runPromise(program).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(String(error))
    process.exit(1)
  }
)
