/**
 * The restore of a large home, for bench/notes.ts:
 *
 * - restore_20k_ms: `/pi-context notes restore @user <commit>` over a home of
 *   20,000 notes, every one of them changed since that commit: from the
 *   command to the restore's own commit landing (the notes saved as they are
 *   first, the home brought back, the restore committed). The notes were
 *   changed by hand and not committed, the worst case: the save before the
 *   restore stores 20,000 new versions. The goal is under 10 s on two cores;
 *   before issue 42 a loaded machine stopped it at git's 20 s limit, and it
 *   restored nothing.
 *
 * One run (it takes seconds and writes 20,000 files twice); the root is its own.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, ManagedRuntime } from "effect"
import { homeSegments, type NotesIdentity, projectKeyOf } from "../../src/notes/identity.ts"
import * as NotesVersionsLive from "../../src/notes/versions/NotesVersionsLive.ts"
import { appLayer } from "../../src/runtime.ts"
import { NotesVersions } from "../../src/notes/versions/NotesVersions.ts"
import { makeFakeSession } from "../../test/support/FakePiSession.ts"

export const RestoreNotes = 20_000

export interface RestoreFigures {
  readonly restore_20k_ms: number
  /** The machine's load when the restore ended: on a shared machine its figure follows the disk's other work. */
  readonly restore_load_average_1m: number
}

const noteAt = (dir: string, i: number) => join(dir, `topic-${Math.floor(i / 200)}`, `note-${i}.md`)

/** Seeds `notes` notes in @user, commits them, rewrites every one, then times the restore of @user to that commit. */
export const benchNotesRestore = async (notes: number = RestoreNotes): Promise<RestoreFigures> => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-notes-restore-bench-")))
  const identity: NotesIdentity = { root, sessionId: "bench-restore", projectKey: projectKeyOf(root), agentName: "pi", modelSlug: "bench-model" }
  const userDir = join(root, ...homeSegments(identity, "user"))
  const write = (text: (i: number) => string) => {
    for (let i = 0; i < notes; i++) {
      if (i % 200 === 0) mkdirSync(join(userDir, `topic-${Math.floor(i / 200)}`), { recursive: true })
      writeFileSync(noteAt(userDir, i), text(i))
    }
  }
  const session = makeFakeSession({
    sessionId: identity.sessionId,
    cwd: root,
    settings: { "pi-context": { notesRoot: root, agentName: identity.agentName } },
    model: { provider: "bench", id: identity.modelSlug, contextWindow: 200_000 }
  })
  const runtime = ManagedRuntime.make(appLayer({ policy: {}, notesVersions: NotesVersionsLive.layer }))
  const onSession = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(Effect.provide(effect, session.layer))
  try {
    write((i) => `# user note ${i}\n\nThe first version of note ${i}.\n`)
    // The first commit of every note may outlast the command's wait: it goes on, and is waited for.
    await onSession(NotesVersions.use((history) => Effect.andThen(Effect.ignore(history.commitNow({ _tag: "Tidy", phase: "before" })), history.awaitCommits(600_000))))
    const hash = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim()
    write((i) => `# user note ${i}\n\nRewritten after the commit: ${i}.\n`)
    const start = performance.now()
    await onSession(NotesVersions.use((history) => Effect.andThen(history.restore("@user", hash), history.awaitCommits(600_000))))
    const elapsed = performance.now() - start
    if (!readFileSync(noteAt(userDir, notes - 1), "utf8").includes("The first version")) throw new Error("the bench's restore did not bring the notes back")
    return { restore_20k_ms: Number(elapsed.toFixed(0)), restore_load_average_1m: Number(loadavg()[0]!.toFixed(2)) }
  } finally {
    await runtime.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}
