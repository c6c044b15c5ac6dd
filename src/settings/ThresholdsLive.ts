import { readFileSync } from "node:fs"
import { Context, Effect, Layer, Option, Path, Ref } from "effect"
import {
  injectedSource,
  isSettingsObject,
  keepWrittenNumbers,
  type ModelRef,
  noticeKey,
  type PolicySettings,
  renderNotice,
  resolvePolicy,
  type ResolvedPolicy,
  type SettingsSource,
  type FileSources,
  type ThresholdNotice
} from "./policy.ts"
import { attributeSettings } from "./sources.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "./Thresholds.ts"
import * as Platform from "../kernel/platform.ts"

interface Loaded {
  readonly sources: ReadonlyArray<SettingsSource>
  readonly files: FileSources
  /** Problems with the files themselves (unreadable, malformed). */
  readonly notices: ReadonlyArray<ThresholdNotice>
}

interface SourceRead {
  readonly source?: SettingsSource
  readonly notices: ReadonlyArray<ThresholdNotice>
}

/** Parses a settings file, keeping numbers a JS number cannot hold as written (`1e400`), so a notice can name them. */
const parseSettings: (text: string) => Option.Option<unknown> = Option.liftThrowable((text: string) =>
  // A byte-order mark is dropped first, as Pi's own settings loader does.
  JSON.parse(text.replace(/^\uFEFF/, ""), keepWrittenNumbers)
)

/** Why a settings file cannot be read, in words and without its path (the notice names the file itself). */
const unreadableWhy = (code: string | undefined): string =>
  code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "EISDIR" || code === "ENOTDIR" || code === "ELOOP"
    ? "it is not a file"
    : "read error"

/**
 * A settings file and its own problems, read synchronously as Pi reads its
 * own: the root boot waits for it, and a small file read at once costs
 * microseconds where an asynchronous read is a trip through libuv's thread
 * pool (milliseconds on a busy machine).
 */
const readSource = (file: string, source: "global" | "project"): SourceRead => {
  // Named as the user knows it: the source label says which of the two files.
  const key = source === "global" ? "settings.json" : ".pi/settings.json"
  const refused = (reason: string, value?: unknown): SourceRead => ({
    notices: [{ key, value, used: undefined, reason, outcome: "using the defaults", source }]
  })
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // A missing file is the ordinary case (no settings), not a problem.
    return code === "ENOENT" ? { notices: [] } : refused(`cannot be read (${unreadableWhy(code)})`)
  }
  if (text.trim() === "") return { notices: [] }
  return Option.match(parseSettings(text), {
    onNone: () => refused("is not valid JSON"),
    onSome: (settings) => isSettingsObject(settings) ? { source: { source, settings }, notices: [] } : refused("is not a JSON object", settings)
  })
}

const currentModel = Effect.map(PiSession.use((session) => session.model), Option.getOrUndefined<ModelRef>)

/** Tells the user of each distinct notice once per extension instance. */
const makeReporter = Effect.gen(function*() {
  const reported = new Set<string>()
  return Effect.fnUntraced(function*(notices: ReadonlyArray<ThresholdNotice>) {
    const fresh = notices.filter((notice) => !reported.has(noticeKey(notice)))
    for (const notice of fresh) reported.add(noticeKey(notice))
    const session = yield* PiSession
    yield* Effect.forEach(fresh, (notice) => session.notify(`pi-context: ${renderNotice(notice)}`, "warning"), { discard: true })
  })
})

const withNotices = (policy: ResolvedPolicy, extra: ReadonlyArray<ThresholdNotice>): ResolvedPolicy =>
  extra.length === 0 ? policy : { ...policy, notices: [...extra, ...policy.notices] }

/**
 * The settings policy: Pi's effective settings (`pi.getSettings()`, Pi's
 * `compaction.reserveTokens` included), each value named after the file that
 * holds it — `<agentDir>/settings.json`, or `<cwd>/.pi/settings.json` when Pi
 * trusts the project — or as set through Pi when no file does. The files are
 * also read for their own problems (unreadable, not JSON).
 */
export const layerFromFiles = Layer.effect(
  Thresholds,
  Effect.gen(function*() {
    const path = yield* Path.Path
    const cache = yield* Ref.make(Option.none<Loaded>())
    const report = yield* makeReporter

    const load = Effect.fn("Thresholds.load")(function*() {
      const session = yield* PiSession
      const global = yield* Effect.sync(() => readSource(path.join(session.agentDir, "settings.json"), "global"))
      const projectTrusted = yield* session.isProjectTrusted
      const projectFile = yield* Effect.sync(() => readSource(path.join(session.cwd, ".pi", "settings.json"), "project"))
      // An untrusted project's settings are never used, exactly as Pi ignores them; its sync list is read only to be refused aloud.
      const project = projectTrusted ? projectFile : { notices: [] } satisfies SourceRead
      const files = [global.source, project.source].filter((source) => source !== undefined)
      // Pi's effective settings are the values (an SDK host's in-memory settings included); the files say where each came from.
      const sources = attributeSettings(yield* session.settings, files)
      const loaded: Loaded = {
        sources,
        // Each file adds its own sync entries and protected homes: in Pi's merge a project's list would hide the global one.
        files: {
          sources: [global.source, projectFile.source, ...sources.filter((source) => source.source === "pi")].filter((source) => source !== undefined),
          projectTrusted
        },
        notices: [...global.notices, ...project.notices]
      }
      yield* Ref.set(cache, Option.some(loaded))
      return loaded
    })

    const resolve = Effect.fnUntraced(function*(loaded: Loaded) {
      const policy = withNotices(resolvePolicy(loaded.sources, yield* currentModel, loaded.files), loaded.notices)
      yield* report(policy.notices)
      return policy
    })

    // The policy is asked for before every provider request: resolve it again
    // only when the settings were re-read or the model changed.
    const resolved = yield* Ref.make<{ readonly loaded: Loaded; readonly model: string; readonly policy: ResolvedPolicy } | undefined>(undefined)

    const policy = Effect.gen(function*() {
      const loaded = yield* Option.match(yield* Ref.get(cache), { onNone: load, onSome: Effect.succeed })
      const model = yield* currentModel
      const modelKey = model === undefined ? "" : `${model.provider}/${model.id}/${model.contextWindow}`
      const last = yield* Ref.get(resolved)
      if (last !== undefined && last.loaded === loaded && last.model === modelKey) return last.policy
      const fresh = yield* resolve(loaded)
      yield* Ref.set(resolved, { loaded, model: modelKey, policy: fresh })
      return fresh
    })

    const refresh = Effect.gen(function*() {
      yield* resolve(yield* load())
    }).pipe(Effect.withSpan("Thresholds.refresh"))

    return Thresholds.of({ policy, refresh })
  })
)

/**
 * An injected policy for SDK users and tests. It replaces the `pi-context`
 * settings and is resolved live on each decision (pass a function to change
 * it between calls). The reserve still follows Pi's effective
 * `compaction` settings (reported as `global`) unless the policy sets `hardLine`.
 */
export const layerInjected = (policy: PolicySettings | (() => PolicySettings)): Layer.Layer<Thresholds> =>
  Layer.effect(
    Thresholds,
    Effect.gen(function*() {
      const report = yield* makeReporter
      const resolveNow = Effect.fnUntraced(function*() {
        const session = yield* PiSession
        const settings = yield* session.settings
        const sources: ReadonlyArray<SettingsSource> = [
          { source: "global", settings: { compaction: settings.compaction } },
          injectedSource(typeof policy === "function" ? policy() : policy)
        ]
        const resolved = resolvePolicy(sources, yield* currentModel)
        yield* report(resolved.notices)
        return resolved
      })
      return Thresholds.of({
        policy: resolveNow().pipe(Effect.withSpan("Thresholds.policy")),
        refresh: Effect.asVoid(resolveNow()).pipe(Effect.withSpan("Thresholds.refresh"))
      })
    })
  )

/** For tests: the default policy, over Pi's compaction settings only. */
export const layerTest: Layer.Layer<Thresholds> = layerInjected({})

/** A policy an SDK host set in place of the settings files; unset, the files apply. */
export const InjectedPolicy = Context.Reference<PolicySettings | (() => PolicySettings) | undefined>("pi-context/InjectedPolicy", {
  defaultValue: () => undefined
})

/** The policy every service reads: the host's injected one when it set one, else the settings files on Node's file system. */
export const layer: Layer.Layer<Thresholds> = Layer.unwrap(
  Effect.gen(function*() {
    const policy = yield* InjectedPolicy
    return policy === undefined ? layerFromFiles : layerInjected(policy)
  })
).pipe(Layer.provide(Platform.layer))
