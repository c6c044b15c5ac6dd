import { Effect } from "effect"
import { NotesHomes } from "./NotesHomes.ts"
import { NotesStore } from "./NotesStore.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Trace } from "../trace/Trace.ts"

/** A fork starts with a copy of its parent's session notes (when its own home is empty). */
export const inheritForkNotes = Effect.fn("notes.inheritForkNotes")(function*() {
  const session = yield* PiSession
  const notes = yield* NotesStore
  const trace = yield* Trace
  const parentId = yield* session.parentSessionId
  if (parentId === undefined || parentId === session.sessionId) return
  const identity = yield* (yield* NotesHomes).identity
  const result = yield* Effect.result(notes.copySessionHome(identity.root, parentId, session.sessionId))
  if (result._tag === "Failure") {
    yield* trace.info("fork.notes-failed", { parentId, reason: result.failure.reason })
    yield* session.notify(`pi-context: could not copy the parent session's notes (${result.failure.reason}).`, "warning")
    return
  }
  yield* trace.info("fork.notes-copied", { parentId, copied: result.success.copied })
})
