import { Context, type Effect } from "effect"
import type { PiSession } from "../kernel/PiSession.ts"

/**
 * Keeps a note's text as it is now as a version, before a change the user
 * allowed: the note versions serve it (a commit of that note). Optional to
 * the notes tools: without it, the wastebasket keeps the text.
 */
export class NoteKeeper extends Context.Service<NoteKeeper, {
  /** The short hash of a commit holding the note's text now, or why none could be made. */
  readonly keepNote: (address: string) => Effect.Effect<string, { readonly message: string }, PiSession>
}>()("pi-context/NoteKeeper") {}
