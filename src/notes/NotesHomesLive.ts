import { resolve } from "node:path"
import { Effect, Layer, Option, SynchronizedRef } from "effect"
import {
  agentSlug,
  InProjectNotesFolder,
  modelSlug,
  NotesRootEnv,
  type NotesIdentity,
  piContextSetting,
  projectNotesInProject,
  resolveNotesRoot
} from "./identity.ts"
import { NotesHomes } from "./NotesHomes.ts"
import { NotesStore } from "./NotesStore.ts"
import { PiSession } from "../kernel/PiSession.ts"
import * as ThresholdsLive from "../settings/ThresholdsLive.ts"
import * as NotesStoreLive from "./NotesStoreLive.ts"

/**
 * Read from process.env, not Effect's default ConfigProvider: that snapshots
 * the environment on first use, which would pin one notes root for every
 * session of a process.
 */
const optionalEnv = (name: string) => Effect.sync(() => Option.fromNullishOr(process.env[name]).pipe(Option.filter((value) => value.length > 0)))

/** The store's answers about the project of a cwd. */
type ProjectOf = Pick<NotesStore["Service"], "projectKey" | "projectRoot">

/** `compute` of each cwd, worked out once: a checkout does not move under a running session. */
const oncePerCwd = <A>(compute: (cwd: string) => Effect.Effect<A>) => {
  const known = new Map<string, A>()
  return (cwd: string): Effect.Effect<A> =>
    Effect.suspend(() =>
      known.has(cwd) ? Effect.succeed(known.get(cwd)!) : Effect.tap(compute(cwd), (value) => Effect.sync(() => void known.set(cwd, value)))
    )
}

/** The identity as the session is now, for a session on model `modelId`. */
const resolveIdentity = Effect.fn("NotesHomes.resolve")(function*(project: ProjectOf, modelId: string | undefined) {
  const session = yield* PiSession
  const settings = yield* session.settings
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
    projectKey: yield* project.projectKey(session.cwd),
    agentName: agentSlug(piContextSetting(settings, "agentName")),
    modelSlug: modelSlug(modelId),
    ...(inProject ? { projectDir: resolve(yield* project.projectRoot(session.cwd), ...InProjectNotesFolder) } : {})
  }
  return identity
})

/** An identity and what it was worked out for: another session id (a test's shared layer), cwd or model works it out again. */
interface Resolved {
  readonly sessionId: string
  readonly cwd: string
  readonly modelId: string | undefined
  readonly identity: NotesIdentity
}

export const layerWithoutDependencies = Layer.effect(
  NotesHomes,
  Effect.gen(function*() {
    const store = yield* NotesStore
    const resolved = yield* SynchronizedRef.make(Option.none<Resolved>())
    const project: ProjectOf = { projectKey: oncePerCwd(store.projectKey), projectRoot: oncePerCwd(store.projectRoot) }

    // One at a time: two hooks asking at once must not both work it out.
    const identity = Effect.gen(function*() {
      const session = yield* PiSession
      const modelId = Option.getOrUndefined(Option.map(yield* session.model, (model) => model.id))
      return yield* SynchronizedRef.modifyEffect(resolved, (known) => {
        if (
          Option.isSome(known) && known.value.sessionId === session.sessionId && known.value.cwd === session.cwd && known.value.modelId === modelId
        ) return Effect.succeed([known.value.identity, known] as const)
        return Effect.map(
          resolveIdentity(project, modelId),
          (fresh) => [fresh, Option.some({ sessionId: session.sessionId, cwd: session.cwd, modelId, identity: fresh })] as const
        )
      })
    })

    const bound = <A extends ReadonlyArray<unknown>, X, E, R>(operation: (identity: NotesIdentity, ...args: A) => Effect.Effect<X, E, R>) =>
    (...args: A): Effect.Effect<X, E, R | PiSession> => Effect.flatMap(identity, (current) => operation(current, ...args))

    return NotesHomes.of({
      identity,
      read: bound(store.read),
      readPage: bound(store.readPage),
      noteState: bound(store.noteState),
      keepCopy: bound(store.keepCopy),
      write: bound(store.write),
      update: bound(store.update),
      retire: bound(store.retire),
      listRetired: bound(store.listRetired),
      list: bound(store.list),
      search: bound(store.search),
      snapshot: bound(store.snapshot),
      readAll: bound(store.readAll),
      writability: bound(store.writability)
    })
  })
)

/** This session's homes on the live notes store. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(NotesStoreLive.layer))

/**
 * For tests on real temp folders: this session's homes on the store, with the store and Node's file system and
 * paths kept in the context, and the settings policy the notes tools' consent gate reads (the session's settings).
 */
export const layerTest = layerWithoutDependencies.pipe(Layer.provideMerge(NotesStoreLive.layerTest), Layer.merge(ThresholdsLive.layer))
