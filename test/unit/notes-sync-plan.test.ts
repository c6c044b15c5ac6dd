import { assert, describe, it } from "@effect/vitest"
import {
  conflictCopyPath,
  copyInAction,
  failureKind,
  isConflictCopy,
  mergePlan,
  parseRawDiff,
  pullDetail,
  remoteForGit,
  sidesOfChanges,
  treeOfKey
} from "../../src/notes/sync/syncPlan.ts"
import { identityAt } from "../support/notesStoreFixtures.ts"

describe("notes sync decisions", () => {
  it("copies a note into the mirror only when this machine changed it, back only when the mirror did, and keeps both when both did", () => {
    assert.strictEqual(copyInAction("a", "a", "x"), "Same")
    assert.strictEqual(copyInAction("b", "a", "a"), "ToMirror")
    assert.strictEqual(copyInAction(undefined, "a", "a"), "ToMirror")
    assert.strictEqual(copyInAction("a", "b", "a"), "ToHome")
    assert.strictEqual(copyInAction(undefined, "b", undefined), "ToHome")
    assert.strictEqual(copyInAction("c", "b", "a"), "Conflict")
    // Deleted on one side, changed on the other: the change wins, never the deletion.
    assert.strictEqual(copyInAction(undefined, "b", "a"), "ToHome")
    assert.strictEqual(copyInAction("c", undefined, "a"), "ToMirror")
    // Never agreed before (a machine joining a remote): both texts differ, both kept.
    assert.strictEqual(copyInAction("c", "b", undefined), "Conflict")
  })

  it("merges note by note: the remote's own changes come in, a note both changed keeps ours and lists theirs", () => {
    const base = new Map([["kept", "1"], ["theirs-changed", "1"], ["both", "1"], ["theirs-deleted", "1"], ["ours-deleted", "1"]])
    const ours = new Map([["kept", "1"], ["theirs-changed", "1"], ["both", "2"], ["theirs-deleted", "1"], ["ours-new", "9"]])
    const theirs = new Map([["kept", "1"], ["theirs-changed", "3"], ["both", "3"], ["ours-deleted", "4"], ["theirs-new", "5"]])
    assert.deepStrictEqual(mergePlan(base, ours, theirs, false), {
      fromTheirs: ["theirs-changed", "ours-deleted", "theirs-new"],
      deleted: ["theirs-deleted"],
      conflicts: [{ path: "both", theirs: "3" }]
    })
    // A rewritten remote's deletions are not trusted.
    assert.deepStrictEqual(mergePlan(base, ours, theirs, true).deleted, [])
  })

  it("plans the same merge from the two sides' diffs as from the three whole trees", () => {
    const base = new Map([["kept.md", "1"], ["theirs-changed.md", "1"], ["both.md", "1"], ["theirs-deleted.md", "1"], ["ours-deleted.md", "1"]])
    const ours = new Map([["kept.md", "1"], ["theirs-changed.md", "1"], ["both.md", "2"], ["theirs-deleted.md", "1"], ["ours-new.md", "9"]])
    const theirs = new Map([["kept.md", "1"], ["theirs-changed.md", "3"], ["both.md", "3"], ["ours-deleted.md", "4"], ["theirs-new.md", "5"]])
    const zero = "0".repeat(40)
    const raw = (changes: ReadonlyArray<readonly [string, string | undefined, string | undefined]>) =>
      changes.map(([path, before, after]) => `:100644 100644 ${before ?? zero} ${after ?? zero} M\0${path}\0`).join("")
    // Notes only: a link (120000) or a file that is no note on either side reaches neither plan.
    const linked = parseRawDiff(`:100644 120000 ${"1".repeat(40)} ${"2".repeat(40)} T\0kept.md\0:000000 100644 ${zero} ${"3".repeat(40)} A\0script.sh\0`)
    assert.deepStrictEqual(linked, [])
    const oursDiff = parseRawDiff(raw([["both.md", "1", "2"], ["ours-deleted.md", "1", undefined], ["ours-new.md", undefined, "9"]]))
    const theirsDiff = parseRawDiff(raw([["theirs-changed.md", "1", "3"], ["both.md", "1", "3"], ["theirs-deleted.md", "1", undefined], ["ours-deleted.md", "1", "4"], ["theirs-new.md", undefined, "5"]]))
    const sides = sidesOfChanges(oursDiff, theirsDiff)
    const sorted = (plan: ReturnType<typeof mergePlan>) => ({ ...plan, fromTheirs: [...plan.fromTheirs].sort(), deleted: [...plan.deleted].sort() })
    assert.deepStrictEqual(sorted(mergePlan(sides.base, sides.ours, sides.theirs, false)), sorted(mergePlan(base, ours, theirs, false)))
  })

  it("reads git's words as the failure doctor has a fix for", () => {
    assert.strictEqual(failureKind("missing", ""), "git-missing")
    assert.strictEqual(failureKind("failed", "timed out after 10 s and was stopped"), "timeout")
    assert.strictEqual(failureKind("failed", "fatal: Authentication failed for 'https://host/x.git/'"), "auth")
    assert.strictEqual(failureKind("failed", "git@host: Permission denied (publickey). fatal: Could not read from remote repository."), "auth")
    assert.strictEqual(failureKind("failed", "fatal: could not read Username for 'https://host': terminal prompts disabled"), "auth")
    assert.strictEqual(failureKind("failed", "fatal: '/x.git' does not appear to be a git repository"), "unreachable")
    assert.strictEqual(failureKind("failed", "ssh: Could not resolve hostname nowhere: Name or service not known"), "unreachable")
    assert.strictEqual(failureKind("failed", "fatal: bad object HEAD"), "other")
  })

  it("names conflict copies beside their note, and knows them again", () => {
    const copy = conflictCopyPath("ideas/plan.md", Date.UTC(2026, 11, 1, 21, 15, 3), 1)
    assert.strictEqual(copy, "ideas/plan.conflict-20261201T211503Z.md")
    assert.strictEqual(conflictCopyPath("plan.md", 0, 2), "plan.conflict-19700101T000000Z-2.md")
    assert.isTrue(isConflictCopy(copy))
    assert.isFalse(isConflictCopy("plan.md"))
  })

  it("hands git a URL or host:path as written, a ~/ path under the home and a relative path from the session's folder", () => {
    const resolve = (...segments: ReadonlyArray<string>) => (segments[1]!.startsWith("/") ? segments[1]! : segments.filter((s) => s !== "").join("/"))
    assert.strictEqual(remoteForGit("https://host/x.git", "/home/me", "/work", resolve), "https://host/x.git")
    assert.strictEqual(remoteForGit("git@github.com:me/notes.git", "/home/me", "/work", resolve), "git@github.com:me/notes.git")
    assert.strictEqual(remoteForGit("~/backup/notes.git", "/home/me", "/work", resolve), "/home/me/backup/notes.git")
    assert.strictEqual(remoteForGit("/srv/notes.git", "/home/me", "/work", resolve), "/srv/notes.git")
    assert.strictEqual(remoteForGit("../team-notes.git", "/home/me", "/work", resolve), "/work/../team-notes.git")
  })

  it("places a path of the remote's tree in its home on this machine", () => {
    const identity = identityAt("/notes")
    const join = (...segments: ReadonlyArray<string>) => segments.join("/")
    assert.deepStrictEqual(treeOfKey(identity, "project/a/b.md", join), {
      tree: { home: "project", prefix: "project", dir: "/notes/projects/repo-0000abcd", wastebasket: "/notes/wastebasket/projects/repo-0000abcd" },
      relative: "a/b.md"
    })
    assert.deepStrictEqual(treeOfKey(identity, "models/other/x.md", join), {
      tree: { home: "model", prefix: "models/other", dir: "/notes/models/other", wastebasket: "/notes/wastebasket/models/other" },
      relative: "x.md"
    })
    assert.isUndefined(treeOfKey(identity, "README.md", join))
    assert.isUndefined(treeOfKey(identity, "agents/x.md", join))
  })

  it("says what a pull did, not just that it went well", () => {
    assert.strictEqual(pullDetail({ pulled: 0, retired: 0, conflicts: 0 }), "up to date")
    assert.strictEqual(pullDetail({ pulled: 2, retired: 0, conflicts: 1 }), "2 notes pulled, 1 conflict kept beside its note")
    assert.strictEqual(pullDetail({ pulled: 0, retired: 0, conflicts: 2 }), "2 conflicts kept beside their notes")
    assert.strictEqual(pullDetail({ pulled: 1, retired: 1, conflicts: 0 }), "1 note pulled, 1 note deleted elsewhere, moved to the wastebasket")
  })
})
