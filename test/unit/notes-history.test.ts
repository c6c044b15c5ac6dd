import { assert, describe, it } from "@effect/vitest"
import {
  commitReasonText,
  commitMessage,
  commitTrailers,
  countChanges,
  describePath,
  homePathspecs,
  isCommitRef,
  parseLog,
  parseStatus,
  pathspecFolder
} from "../../src/notes/versions/versions.ts"
import type { NotesIdentity } from "../../src/notes/identity.ts"

const identity: NotesIdentity = { root: "/n", sessionId: "0123abcd-0000", projectKey: "repo-00ab", agentName: "pi", modelSlug: "m" }

describe("notes history (pure)", () => {
  it("reads git status records: untracked and added are additions, deletions in either column, the rest modifications", () => {
    const changes = parseStatus("?? sessions/s/plan.md\0 M user/prefs.md\0D  agents/pi/old.md\0A  models/m/new.md\0 D user/x.md\0")
    assert.deepStrictEqual(countChanges(changes), { added: 2, modified: 1, deleted: 2 })
    assert.deepStrictEqual(changes[0], { path: "sessions/s/plan.md", kind: "added" })
  })

  it("names a window's commit by its ordinal, session and tally", () => {
    const counts = { added: 2, modified: 1, deleted: 0 }
    assert.strictEqual(commitMessage({ _tag: "Window", windowId: "pcx:0000:root", ordinal: 3 }, "0123abcd-0000", counts), "w3 of session 0123abcd: +2 ~1 −0")
    assert.strictEqual(commitMessage({ _tag: "Shutdown", windowId: "pcx:0000:1a2b3c4d", ordinal: 4 }, "0123abcd-0000", counts), "w4 of session 0123abcd (shutdown): +2 ~1 −0")
    assert.strictEqual(
      commitMessage({ _tag: "Restore", address: "@user/prefs.md", from: "a".repeat(40) }, "0123abcd", counts),
      "restore @user/prefs.md to aaaaaaaaaaaa (session 0123abcd)"
    )
  })

  it("keys a commit by trailers: the full session id, and the window id of a boundary or shutdown commit", () => {
    const session = "0123abcd-ef45-7000-8000-000000000000"
    assert.strictEqual(
      commitTrailers({ _tag: "Window", windowId: "pcx:000000000000:1a2b3c4d", ordinal: 3 }, session),
      `Pi-Context-Session: ${session}\nPi-Context-Window: pcx:000000000000:1a2b3c4d`
    )
    assert.strictEqual(commitTrailers({ _tag: "Shutdown", windowId: "pcx:000000000000:root", ordinal: 1 }, session), `Pi-Context-Session: ${session}\nPi-Context-Window: pcx:000000000000:root`)
    assert.strictEqual(commitTrailers({ _tag: "Tidy", phase: "before" }, session), `Pi-Context-Session: ${session}`)
    // A value never spills onto a line of its own.
    assert.strictEqual(commitTrailers({ _tag: "Window", windowId: "a\nInjected: b", ordinal: 1 }, "s"), "Pi-Context-Session: s\nPi-Context-Window: a Injected: b")
  })

  it("reads the session and window trailers of a session log; a repeated or missing one names nothing", () => {
    const log = "\x1ea\x1fa\x1f2026-12-01T09:00:00+00:00\x1fpi-context\x1fw1 of session s: +1 ~0 −0\x1fsid\x1fpcx:s:root\n\nA\tuser/prefs.md\n" +
      "\x1eb\x1fb\x1f2026-12-01T09:00:00+00:00\x1fpi-context\x1fw2 of session s: +1 ~0 −0\x1fsid\x1dother\x1f\n" +
      "\x1ec\x1fc\x1f2026-11-30T09:00:00+00:00\x1fAda\x1fmine\n"
    const [keyed, repeated, plain] = parseLog(log)
    assert.deepStrictEqual([keyed!.session, keyed!.window, keyed!.files.length], ["sid", "pcx:s:root", 1])
    assert.deepStrictEqual([repeated!.session, repeated!.window], [undefined, undefined])
    assert.deepStrictEqual([plain!.session, plain!.window, plain!.subject], [undefined, undefined, "mine"])
  })

  it("covers the homes and their wastebaskets with .md globs, under the root's prefix; an in-project project home is left out", () => {
    assert.deepStrictEqual(homePathspecs({ prefix: "notes/", identity }, ["user"]), [":(glob)notes/user/**/*.md", ":(glob)notes/wastebasket/user/**/*.md"])
    assert.strictEqual(describePath({ prefix: "", identity }, "wastebasket/projects/repo-00ab/db.md"), "@project/db.md (wastebasket)")
    assert.strictEqual(describePath({ prefix: "", identity: { ...identity, projectDir: "/p/.pi/notes" } }, "projects/repo-00ab/db.md"), "projects/repo-00ab/db.md")
  })

  it("takes glob characters in a user's folder names literally, and reads the folder back", () => {
    const spec = homePathspecs({ prefix: "notes [old]/", identity }, ["user"])[0]!
    assert.strictEqual(spec, ":(glob)notes \\[old\\]/user/**/*.md")
    assert.strictEqual(pathspecFolder(spec), "notes [old]/user")
    assert.isUndefined(pathspecFolder(":(literal)notes/user/a.md"))
  })

  it("parses the log's records with the files each touched", () => {
    const log = "\x1eabc123\x1fabc\x1f2026-12-01T09:00:00+00:00\x1fpi-context\x1fw1 of session s: +1 ~0 −0\n\nA\tuser/prefs.md\n" +
      "\x1edef456\x1fdef\x1f2026-11-30T09:00:00+00:00\x1fAda\x1fmine\n"
    const commits = parseLog(log)
    assert.strictEqual(commits.length, 2)
    assert.deepStrictEqual(commits[0]!.files, [{ status: "A", path: "user/prefs.md" }])
    assert.strictEqual(commits[1]!.author, "Ada")
  })

  it("accepts hashes and simple revisions as commits, never options or ranges", () => {
    for (const ok of ["a1b2c3d", "HEAD~2", "main", "HEAD^"]) assert.isTrue(isCommitRef(ok), ok)
    for (const bad of ["--output=/tmp/x", "-p", "a..b", "", "x y"]) assert.isFalse(isCommitRef(bad), bad)
  })
})

describe("a commit's reason in the trace", () => {
  it("is words a user reads, not the reason's tag", () => {
    assert.strictEqual(commitReasonText({ _tag: "Window", windowId: "pcx:a:b", ordinal: 3 }), "window w3 ended")
    assert.strictEqual(commitReasonText({ _tag: "Tidy", phase: "before" }), "tidy, before")
    assert.strictEqual(commitReasonText({ _tag: "BeforeRestore", address: "@user/prefs.md" }), "before a restore of @user/prefs.md")
  })
})
