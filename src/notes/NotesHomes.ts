import { Context, type Effect } from "effect"
import type { NotesIdentity } from "./identity.ts"
import type { NotesStore } from "./NotesStore.ts"
import type { PiSession } from "../kernel/PiSession.ts"

/** The store operations that act on one identity's homes. */
type IdentityBound = "read" | "readPage" | "noteState" | "keepCopy" | "write" | "update" | "retire" | "listRetired" | "list" | "search" | "snapshot" | "readAll" | "writability"

/** A store operation with this session's identity filled in. */
type Bound<F> = F extends (identity: NotesIdentity, ...args: infer A) => Effect.Effect<infer X, infer E, infer R>
  ? (...args: A) => Effect.Effect<X, E, R | PiSession>
  : never

/**
 * The five homes this session's notes resolve to (session, project, user,
 * agent, model), and the notes store on them. The identity is worked out
 * once per session and again when the session reports another model (the
 * project, a walk up to the git checkout, once per cwd), so no caller
 * computes it or hands it back to the store.
 */
export class NotesHomes extends Context.Service<NotesHomes, {
  readonly identity: Effect.Effect<NotesIdentity, never, PiSession>
} & { readonly [K in IdentityBound]: Bound<NotesStore["Service"][K]> }>()("pi-context/NotesHomes") {}
