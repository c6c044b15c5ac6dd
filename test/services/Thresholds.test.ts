import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path } from "effect"
import { type PolicySettings, renderNotice, type ResolvedPolicy } from "../../src/settings/policy.ts"
import { layerFromFiles as thresholdsFromFiles, layerInjected } from "../../src/settings/ThresholdsLive.ts"
import type { PiSession } from "../../src/kernel/PiSession.ts"
import { Thresholds } from "../../src/settings/Thresholds.ts"
import { SettingsManager } from "@earendil-works/pi-coding-agent"
import { defaultModel, type FakeSessionOptions, makeFakeSession, settingsSessionOptions } from "../support/FakePiSession.ts"

/**
 * Real temp settings files laid out as Pi has them: `<agentDir>/settings.json`,
 * `<cwd>/.pi/settings.json`; the session's effective settings are Pi's own
 * merge of them (its SettingsManager), read again after each write.
 */
const withSettings = (files: { readonly global?: unknown; readonly project?: unknown }, knobs: FakeSessionOptions = {}) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-context-thresholds-" })
    const agentDir = path.join(root, "agent")
    const cwd = path.join(root, "project")
    yield* fs.makeDirectory(agentDir, { recursive: true })
    yield* fs.makeDirectory(path.join(cwd, ".pi"), { recursive: true })
    const session = makeFakeSession({ ...settingsSessionOptions, agentDir, cwd, ...knobs })
    const piEffective = () => SettingsManager.create(cwd, agentDir, { projectTrusted: session.projectTrusted }).getSettings()
    const write = (file: string, content: unknown) =>
      fs.writeFileString(file, typeof content === "string" ? content : JSON.stringify(content, null, 2)).pipe(
        Effect.andThen(Effect.sync(() => {
          session.settings = piEffective() as unknown as Readonly<Record<string, unknown>>
        }))
      )
    const globalFile = path.join(agentDir, "settings.json")
    const projectFile = path.join(cwd, ".pi", "settings.json")
    if (files.global !== undefined) yield* write(globalFile, files.global)
    if (files.project !== undefined) yield* write(projectFile, files.project)
    const thresholds = yield* serviceOf(thresholdsFromFiles)
    const run = <A>(effect: Effect.Effect<A, never, PiSession>) =>
      Effect.provide(effect, session.layer)
    return { thresholds, run, session, write, globalFile, projectFile }
  })

const lineTriple = (policy: ResolvedPolicy) =>
  [policy.lines.guidance.value, policy.lines.warning.value, policy.lines.hard.value]

const TestLayer = NodeServices.layer

const serviceOf = <E, R>(layer: Layer.Layer<Thresholds, E, R>) =>
  Effect.gen(function*() {
    return yield* Thresholds
  }).pipe(Effect.provide(layer))

layer(TestLayer)("Thresholds over real settings files", (it) => {
  it.effect("global only: pi-context lines and Pi's reserve from the agent directory", () =>
    Effect.gen(function*() {
      const { thresholds, run } = yield* withSettings({
        global: { compaction: { reserveTokens: 20000 }, "pi-context": { guidanceLine: 50000 } }
      })
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(policy), [50000, 20000 + 12288, 20000])
      assert.deepStrictEqual([policy.lines.guidance.source, policy.lines.warning.source, policy.lines.hard.source], ["global", "default", "global"])
      assert.deepStrictEqual(policy.notices, [])
    }))

  it.effect("a trusted project overrides per key and keeps the rest of global", () =>
    Effect.gen(function*() {
      const { thresholds, run } = yield* withSettings({
        global: { compaction: { reserveTokens: 20000 }, "pi-context": { guidanceLine: 60000, warningLine: 30000, automaticReset: false } },
        project: { compaction: { reserveTokens: 18000 }, "pi-context": { warningLine: 35000 } }
      })
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(policy), [60000, 35000, 18000])
      assert.deepStrictEqual([policy.lines.warning.source, policy.lines.hard.source, policy.automaticReset.source], ["project", "project", "global"])
      assert.strictEqual(policy.automaticReset.value, false)
    }))

  it.effect("an untrusted project's settings are ignored", () =>
    Effect.gen(function*() {
      const { thresholds, run } = yield* withSettings({
        global: { "pi-context": { warningLine: 30000 } },
        project: { compaction: { reserveTokens: 1000 }, "pi-context": { warningLine: 35000, guidanceLine: 90000 } }
      }, { projectTrusted: false })
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(policy), [16384 + 24576, 30000, 16384])
      assert.deepStrictEqual(policy.notices, [])
    }))

  it.effect("malformed JSON gives one notice, once, and safe defaults", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({
        global: "{ \"pi-context\": { \"warningLine\": 30000, ",
        project: { "pi-context": { guidanceLine: 45000 } }
      })
      yield* run(thresholds.refresh)
      const policy = yield* run(thresholds.policy)
      // Named as the user knows the file, never by its absolute path.
      assert.deepStrictEqual(policy.notices.map(renderNotice), ["global settings: settings.json is not valid JSON; using the defaults."])
      assert.deepStrictEqual(lineTriple(policy), [45000, 28672, 16384])
      yield* run(thresholds.refresh)
      // refresh tells the user; neither a second refresh nor policy tells again.
      assert.deepStrictEqual(session.notices.map((notice) => notice.message), ["pi-context: global settings: settings.json is not valid JSON; using the defaults."])
    }))

  it.effect("reads the settings files without waiting on the file system's thread pool: start-up's first step runs at once", () =>
    Effect.gen(function*() {
      const { thresholds, session } = yield* withSettings({ global: { "pi-context": { guidanceLine: 50000 } } })
      // runSync throws on an effect that suspends, as an asynchronous file read does.
      const policy = Effect.runSync(Effect.provide(Effect.andThen(thresholds.refresh, thresholds.policy), session.layer))
      assert.strictEqual(policy.lines.guidance.value, 50000)
    }))

  it.effect("a folder where settings.json belongs gives one notice, and the defaults", () =>
    Effect.gen(function*() {
      const { thresholds, run, session, globalFile } = yield* withSettings({})
      yield* (yield* FileSystem.FileSystem).makeDirectory(globalFile)
      yield* run(thresholds.refresh)
      assert.deepStrictEqual(session.notices.map((notice) => notice.message), [
        "pi-context: global settings: settings.json cannot be read (it is not a file); using the defaults."
      ])
    }))

  it.effect("without a refresh, policy shows a file problem itself, once", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({ global: "not json" })
      yield* run(thresholds.policy)
      yield* run(thresholds.policy)
      const shown = session.notices.map((notice) => notice.message)
      assert.strictEqual(shown.length, 1)
      assert.deepStrictEqual(shown, ["pi-context: global settings: settings.json is not valid JSON; using the defaults."])
    }))

  it.effect("wrong types: each key gets one notice and its default", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({
        global: { "pi-context": { guidanceLine: "big", automaticReset: "no", traceLevel: 3, models: [] } }
      })
      yield* run(thresholds.refresh)
      const notices = (yield* run(thresholds.policy)).notices
      assert.strictEqual(session.notices.length, 4)
      assert.deepStrictEqual(notices.map((n) => [n.key, n.used]), [
        ["pi-context.models", "no model overrides"],
        ["pi-context.automaticReset", true],
        ["pi-context.traceLevel", "info"],
        ["pi-context.guidanceLine", 40960]
      ])
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(policy), [40960, 28672, 16384])
      assert.strictEqual(policy.automaticReset.value, true)
    }))

  it.effect("negative and huge values are replaced and clamped into the model's window", () =>
    Effect.gen(function*() {
      const { thresholds, run } = yield* withSettings({
        global: { compaction: { reserveTokens: -5 }, "pi-context": { warningLine: -1, guidanceLine: 10_000_000 } }
      })
      yield* run(thresholds.refresh)
      const notices = (yield* run(thresholds.policy)).notices
      assert.deepStrictEqual(notices.map((n) => [n.key, n.value, n.used]), [
        ["compaction.reserveTokens", -5, 16384],
        ["pi-context.warningLine", -1, 28672],
        ["pi-context.guidanceLine", 10_000_000, 40960]
      ])
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(policy), [40960, 28672, 16384])
    }))

  it.effect("a model override by glob, and Pi's per-model reserve", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({
        global: {
          compaction: { modelOverrides: { "anthropic/claude-sonnet-4": { reserveTokens: 30000 } } },
          "pi-context": { models: { "claude-*": { warningLine: 50000, guidanceLine: 70000 }, "gpt-*": { warningLine: 20000 } } }
        }
      })
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(policy), [70000, 50000, 30000])
      assert.deepStrictEqual([policy.lines.warning.source, policy.lines.hard.source], ["model", "model"])
      assert.deepStrictEqual(policy.modelPatterns, ["claude-*"])
      yield* Effect.sync(() => {
        session.model = { provider: "openai", id: "gpt-5", contextWindow: 400_000 }
      })
      const other = yield* run(thresholds.policy)
      assert.deepStrictEqual(lineTriple(other), [40960, 20000, 16384])
    }))

  it.effect("a number JSON cannot hold is named as the file wrote it", () =>
    Effect.gen(function*() {
      const { thresholds, run } = yield* withSettings({
        global: "{ \"pi-context\": { \"hardLine\": 1e400, \"warningLine\": 99999999999999999999 } }"
      })
      yield* run(thresholds.refresh)
      const notices = (yield* run(thresholds.policy)).notices
      assert.deepStrictEqual(notices.map(renderNotice), [
        "global settings: pi-context.hardLine = 1e400 is too large; using 16,384.",
        "global settings: pi-context.warningLine = 99999999999999999999 is too large; using 28,672."
      ])
      assert.deepStrictEqual(lineTriple(yield* run(thresholds.policy)), [40960, 28672, 16384])
    }))

  it.effect("a file that starts with a byte-order mark is read, as Pi reads it", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({ global: "\uFEFF{ \"pi-context\": { \"warningLine\": 30000 } }" })
      yield* run(thresholds.refresh)
      assert.deepStrictEqual(session.notices.map((notice) => notice.message), [])
      assert.strictEqual((yield* run(thresholds.policy)).lines.warning.value, 30000)
    }))

  it.effect("unknown keys in either file are each told once, with where they were found", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({
        global: { "pi-context": { hardline: 12000, models: { "claude-*": { warnLine: 40000 } } } },
        project: { "pi-context": { enabeld: false, notesRoot: 3 } }
      })
      yield* run(thresholds.policy)
      yield* run(thresholds.policy)
      assert.deepStrictEqual(session.notices.map((notice) => notice.message), [
        "pi-context: global settings: pi-context.hardline = 12000 is not a pi-context setting (did you mean hardLine?); it is ignored.",
        "pi-context: project settings: pi-context.enabeld = false is not a pi-context setting (did you mean enabled?); it is ignored.",
        "pi-context: global settings: pi-context.models[\"claude-*\"].warnLine = 40000 is not a pi-context setting (did you mean warningLine?); it is ignored.",
        "pi-context: project settings: pi-context.notesRoot = 3 is a number, not a folder path (a text); it is ignored."
      ])
    }))

  it.effect("pi-context.sync: the global list and a trusted project's list both apply, and a bad entry is a notice like any bad setting", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({
        global: { "pi-context": { sync: [{ homes: ["user", "session"], remote: "https://me:tok3n-secret@example.com/notes.git" }] } },
        project: { "pi-context": { sync: [{ homes: ["project", "agent"], remote: "../team.git", brnach: "x" }] } }
      })
      yield* run(thresholds.refresh)
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(policy.sync.map(({ homes, source }) => ({ homes, source })), [
        { homes: ["user"], source: "global" },
        { homes: ["project"], source: "project" }
      ])
      assert.deepStrictEqual(session.notices.map((notice) => notice.message), [
        "pi-context: global settings: pi-context.sync[0].homes[1] = \"session\" is never synced: the session home is this session's alone; it is ignored.",
        "pi-context: project settings: pi-context.sync[0].brnach = \"x\" is not a sync setting (did you mean branch?); it is ignored.",
        "pi-context: project settings: pi-context.sync[0].homes[1] = \"agent\" can only be set in the global settings: a repository must not send your notes to its remote; it is ignored."
      ])
    }))

  it.effect("pi-context.sync in an untrusted project is refused aloud, and the global list still applies", () =>
    Effect.gen(function*() {
      const { thresholds, run, session } = yield* withSettings({
        global: { "pi-context": { sync: [{ homes: ["user"], remote: "/srv/notes.git" }] } },
        project: { "pi-context": { sync: [{ homes: ["project"], remote: "https://evil.example/x.git" }] } }
      }, { projectTrusted: false })
      yield* run(thresholds.refresh)
      const policy = yield* run(thresholds.policy)
      assert.deepStrictEqual(policy.sync.map((remote) => remote.remote), ["/srv/notes.git"])
      assert.deepStrictEqual(session.notices.map((notice) => notice.message), [
        "pi-context: project settings: pi-context.sync is not used: Pi does not trust this project, and a repository must not choose where notes are sent; no notes are synced from it."
      ])
    }))

  it.effect("file-backed policy is cached until refresh", () =>
    Effect.gen(function*() {
      const { thresholds, run, write, globalFile } = yield* withSettings({ global: { "pi-context": { warningLine: 30000 } } })
      assert.strictEqual((yield* run(thresholds.policy)).lines.warning.value, 30000)
      yield* write(globalFile, { "pi-context": { warningLine: 31000 } })
      assert.strictEqual((yield* run(thresholds.policy)).lines.warning.value, 30000)
      yield* run(thresholds.refresh)
      assert.strictEqual((yield* run(thresholds.policy)).lines.warning.value, 31000)
    }))
})

describe("Thresholds with an injected policy", () => {
  it.effect("is resolved live on each decision and follows Pi's effective reserve", () =>
    Effect.gen(function*() {
      let policy: PolicySettings = { warningLine: 40000 }
      const session = makeFakeSession({ ...settingsSessionOptions, model: defaultModel, settings: { compaction: { reserveTokens: 20000 } } })
      const thresholds = yield* serviceOf(layerInjected(() => policy))
      const first = yield* Effect.provide(thresholds.policy, session.layer)
      assert.deepStrictEqual([first.lines.warning.value, first.lines.warning.source, first.lines.hard.value], [40000, "injected", 20000])
      policy = { warningLine: 45000, hardLine: 25000 }
      const second = yield* Effect.provide(thresholds.policy, session.layer)
      assert.deepStrictEqual([second.lines.warning.value, second.lines.hard.value, second.lines.hard.source], [45000, 25000, "injected"])
    }))

  it.effect("reports an invalid injected value once", () =>
    Effect.gen(function*() {
      const session = makeFakeSession(settingsSessionOptions)
      const thresholds = yield* serviceOf(layerInjected({ guidanceLine: -3 }))
      yield* Effect.provide(thresholds.policy, session.layer)
      yield* Effect.provide(thresholds.policy, session.layer)
      const shown = session.notices.map((notice) => notice.message)
      assert.deepStrictEqual(shown, ["pi-context: injected policy: pi-context.guidanceLine = -3 is negative; using 40,960."])
    }))
})

