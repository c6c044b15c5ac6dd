import { Effect } from "effect"
import { type CustomMessageDraft, PiSession } from "../kernel/PiSession.ts"
import type { BoundaryDraft } from "./boundary.ts"

/**
 * Writes a boundary's drafts to the session now, in their order: a custom
 * entry through Pi's `appendEntry` (Pi's TUI draws the marker's divider
 * from it), each run of context edits in one `hideFromPiContext` (batched,
 * yielding between batches), a hidden message through `message`. pi-context
 * writes no compaction draft.
 */
export const writeDrafts = <R>(
  drafts: ReadonlyArray<BoundaryDraft>,
  message: (draft: CustomMessageDraft) => Effect.Effect<void, never, R>
) =>
  Effect.gen(function*() {
    const session = yield* PiSession
    let edits: Array<string> = []
    const hideEdits = Effect.suspend(() => {
      const ids = edits
      edits = []
      return ids.length === 0 ? Effect.void : session.hideFromPiContext(ids)
    })
    for (const draft of drafts) {
      if (draft.type === "context_edit") {
        edits.push(draft.targetId)
        continue
      }
      yield* hideEdits
      if (draft.type === "custom") yield* session.appendCustomEntry(draft.customType, draft.data)
      if (draft.type === "custom_message") yield* message(draft)
    }
    yield* hideEdits
  })
