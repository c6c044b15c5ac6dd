import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, PlatformError } from "effect"
import { reportNotesWritability } from "../../src/notes/notesHealth.ts"
import { doctorReport } from "../../src/commands/doctor.ts"
import { writability } from "../../src/notes/writable.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import * as NotesStoreLive from "../../src/notes/NotesStoreLive.ts"
import * as NoticesLive from "../../src/kernel/NoticesLive.ts"
import * as TraceLive from "../../src/trace/TraceLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { NotesVersions } from "../../src/notes/versions/NotesVersions.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"
import { tempDir } from "../support/tempDirs.ts"

/** The real file system, except that writing is refused at (and below) `readOnly`, as on a read-only mount. */
const readOnlyAt = (readOnly: string) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
      ...fs,
      access: (path: string, options?: { readonly writable?: boolean }) =>
        options?.writable === true && (path === readOnly || path.startsWith(`${readOnly}/`))
          ? Effect.fail(PlatformError.systemError({ _tag: "PermissionDenied", module: "FileSystem", method: "access", pathOrDescriptor: path }))
          : fs.access(path, options)
    }))
  ).pipe(Layer.provide(NodeServices.layer))

/** The notes history has its own doctor line and tests; here it only answers. */
const quietHistory = Layer.mock(NotesVersions)({ describe: Effect.succeed({ ok: true, text: "note versions: not under test" }) })

const services = (platform: Layer.Layer<FileSystem.FileSystem>) =>
  Layer.mergeAll(NotesHomesLive.layerWithoutDependencies, TraceLive.layerTest, WindowLive.layerTest, quietHistory, NoticesLive.layer).pipe(
    Layer.provideMerge(NotesStoreLive.layerWithoutDependencies),
    Layer.provideMerge(Layer.merge(NodeServices.layer, platform))
  )

/** Runs `effect` against a notes root given by PI_CONTEXT_NOTES_ROOT, with a fake Pi session. */

const withNotesRoot = <A, E, R>(root: string, effect: Effect.Effect<A, E, R>) => {
  const previous = process.env.PI_CONTEXT_NOTES_ROOT
  const fake = makeFakeSession({ cwd: tempDir("pi-context-cwd-"), agentDir: tempDir("pi-context-agent-") })
  return Effect.acquireUseRelease(
    Effect.sync(() => void (process.env.PI_CONTEXT_NOTES_ROOT = root)),
    () => Effect.map(Effect.provide(effect, fake.layer), (value) => ({ value, notices: fake.notices.map((notice) => notice.message) })),
    () => Effect.sync(() => previous === undefined ? delete process.env.PI_CONTEXT_NOTES_ROOT : void (process.env.PI_CONTEXT_NOTES_ROOT = previous))
  )
}

const scratch = () => tempDir("pi-context-writable-")
const failLines = (report: string) => report.split("\n").filter((line) => line.startsWith("FAIL"))

describe("a notes root that cannot be written", () => {
  it.effect("a file as the notes root: one notice at start, and doctor fails the root and all five homes", () =>
    Effect.gen(function*() {
      const root = join(scratch(), "notes")
      writeFileSync(root, "a file, not a folder")
      const start = yield* withNotesRoot(root, reportNotesWritability)
      assert.deepStrictEqual(start.notices, [
        "pi-context cannot write notes: the notes root is a file, not a folder. " +
        "Point pi-context.notesRoot (or PI_CONTEXT_NOTES_ROOT) at a folder you can write, or fix its permissions; /pi-context doctor shows where it is."
      ])
      assert.notInclude(start.notices[0]!, root)
      const doctor = (yield* withNotesRoot(root, doctorReport)).value
      const failed = failLines(doctor)
      assert.strictEqual(failed[0], `FAIL notes root: it is a file, not a folder (${root}); point pi-context.notesRoot (or PI_CONTEXT_NOTES_ROOT) at a folder you can write, or fix its permissions`)
      for (const home of ["session", "project", "user", "agent", "model"]) {
        assert.isTrue(failed.some((line) => line.startsWith(`FAIL notes home ${home}: cannot be written, it is below a file, not a folder; move that file out of the way (${root})`)), home)
      }
      assert.notMatch(doctor, /^ok {3}notes home/m)
      // Nothing could be read: the lint says so, instead of "ok" of notes it never saw.
      assert.include(failed, "FAIL notes lint: no note could be read (every home is unreadable), so none was checked; fix the notes root or homes above, then run doctor again")
      assert.notMatch(doctor, /^ok {3}notes lint/m)
    }).pipe(Effect.provide(services(NodeServices.layer))))

  it.effect("a read-only notes root, and a notes root inside a read-only folder, are told apart", () =>
    Effect.gen(function*() {
      const parent = scratch()
      const root = join(parent, "notes")
      mkdirSync(root)
      const readOnlyRoot = yield* withNotesRoot(root, reportNotesWritability).pipe(Effect.provide(services(readOnlyAt(root))))
      assert.match(readOnlyRoot.notices.join("\n"), /^pi-context cannot write notes: the notes root is read-only\. /)
      const doctor = (yield* withNotesRoot(root, doctorReport).pipe(Effect.provide(services(readOnlyAt(root))))).value
      assert.include(failLines(doctor)[0]!, "FAIL notes root: it is read-only")

      const notYetCreated = join(parent, "later", "notes")
      const inside = yield* withNotesRoot(notYetCreated, reportNotesWritability).pipe(Effect.provide(services(readOnlyAt(parent))))
      assert.match(inside.notices.join("\n"), /^pi-context cannot write notes: the notes root is inside a read-only folder\. /)
    }))

  it.effect("a home that a file blocks is named on its own", () =>
    Effect.gen(function*() {
      const root = scratch()
      writeFileSync(join(root, "user"), "not the user home")
      const start = yield* withNotesRoot(root, reportNotesWritability)
      assert.deepStrictEqual(start.notices, [
        "pi-context cannot write notes in the user home (a file, a read-only folder or a symbolic link that leads out of its folder is in the way). /pi-context doctor shows where."
      ])
      const failed = failLines((yield* withNotesRoot(root, doctorReport)).value)
      assert.deepStrictEqual(failed, [
        `FAIL notes home user: cannot be written, it is a file, not a folder; move that file out of the way (${join(root, "user")})`,
        // The lint says what it could not read, rather than "ok" of notes it never saw.
        "FAIL notes lint: the user home could not be read, so its notes were not checked; fix it as the notes home lines above say"
      ])
    }).pipe(Effect.provide(services(NodeServices.layer))))

  it.effect("a home whose folder links out of the notes root is named at start and in doctor, with the link", () =>
    Effect.gen(function*() {
      const root = scratch()
      const outside = scratch()
      symlinkSync(outside, join(root, "user"))
      const start = yield* withNotesRoot(root, reportNotesWritability)
      assert.deepStrictEqual(start.notices, [
        "pi-context cannot write notes in the user home (a file, a read-only folder or a symbolic link that leads out of its folder is in the way). /pi-context doctor shows where."
      ])
      const failed = failLines((yield* withNotesRoot(root, doctorReport)).value)
      assert.deepStrictEqual(failed, [
        `FAIL notes home user: cannot be written, it is reached through a symbolic link that leads outside the notes root; replace the symbolic link ${join(root, "user")} with a folder`,
        "FAIL notes lint: the user home could not be read, so its notes were not checked; fix it as the notes home lines above say"
      ])
    }).pipe(Effect.provide(services(NodeServices.layer))))

  it.effect("a writable root, even one not created yet, is told nowhere, and checking it writes nothing", () =>
    Effect.gen(function*() {
      const root = join(scratch(), "not", "yet", "notes")
      const start = yield* withNotesRoot(root, reportNotesWritability)
      assert.deepStrictEqual(start.notices, [])
      const doctor = (yield* withNotesRoot(root, doctorReport)).value
      assert.include(doctor, `ok   notes root: ${root}`)
      assert.notMatch(doctor, /^FAIL notes/m)
      assert.isFalse(existsSync(join(root, "..")))
      assert.deepStrictEqual(yield* writability(root), { _tag: "Writable" })
    }).pipe(Effect.provide(services(NodeServices.layer))))
})
