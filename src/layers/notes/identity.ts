import { resolve } from "node:path"
import { Effect, Option } from "effect"
import {
  agentSlug,
  InProjectNotesFolder,
  modelSlug,
  NotesRootEnv,
  type NotesIdentity,
  piContextSetting,
  projectNotesInProject,
  resolveNotesRoot
} from "../../domain/notes/identity.ts"
import { NotesStore } from "../../services/NotesStore.ts"
import { PiSession } from "../../services/PiSession.ts"

/**
 * Read at call time: Effect's default ConfigProvider snapshots the environment
 * on first use, which would pin one notes root for every session of a process.
 */
const optionalEnv = (name: string) => Effect.sync(() => Option.fromNullishOr(process.env[name]).pipe(Option.filter((value) => value.length > 0)))

/** The identity as the session is now; the NotesHomes room keeps it for the session and its model. */
export const resolveNotesIdentity = Effect.fn("notes.identity")(function*() {
  const session = yield* PiSession
  const store = yield* NotesStore
  const settings = yield* session.settings
  const model = yield* session.model
  const root = resolveNotesRoot({
    env: Option.getOrUndefined(yield* optionalEnv(NotesRootEnv)),
    setting: piContextSetting(settings, "notesRoot"),
    agentDir: session.agentDir,
    cwd: session.cwd,
    home: Option.getOrUndefined(yield* optionalEnv("HOME")),
    resolve: (...segments) => resolve(...segments)
  })
  const inProject = projectNotesInProject(piContextSetting(settings, "projectNotes"), yield* session.isProjectTrusted)
  const identity: NotesIdentity = {
    root,
    sessionId: session.sessionId,
    projectKey: yield* store.projectKey(session.cwd),
    agentName: agentSlug(piContextSetting(settings, "agentName")),
    modelSlug: modelSlug(Option.getOrUndefined(Option.map(model, (m) => m.id))),
    ...(inProject ? { projectDir: resolve(yield* store.projectRoot(session.cwd), ...InProjectNotesFolder) } : {})
  }
  return identity
})
