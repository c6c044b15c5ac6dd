import { describe, expect, it } from "vitest"
import { commitMessage, type HistoryCommit, shortSessionId } from "../../src/notes/versions/versions.ts"
import { legacyWindowOfSubject, noteChangesOf, windowNoteChanges } from "../../src/notes/versions/windowChanges.ts"
import { changeTally } from "../../src/window/view.ts"

const session = "0123abcd-ef45-7000-8000-000000000000"
// Created in the same minute: the same first 8 characters, another session.
const sibling = "0123abcd-ef45-7000-8000-999999999999"
const other = "99998888-0000-7000-8000-000000000000"

let n = 0
const commit = (
  subject: string,
  files: ReadonlyArray<readonly [string, string]>,
  keys: { readonly session?: string; readonly window?: string } = {}
): HistoryCommit => {
  n++
  return { hash: `${n}`.padStart(40, "0"), short: `c${n}`, date: "2026-12-01T09:00:00Z", author: "pi-context", subject, files: files.map(([status, path]) => ({ status, path })), ...keys }
}
const tally = (added: number, modified: number, deleted: number) => ({ added, modified, deleted })
const subject = (ordinal: number, counts = tally(0, 0, 0), shutdown = false, of = session) =>
  commitMessage({ _tag: shutdown ? "Shutdown" : "Window", windowId: "unused", ordinal }, of, counts)
/** A commit as this version makes it: its subject for people, its trailers for reading back. */
const keyed = (ordinal: number, windowId: string, files: ReadonlyArray<readonly [string, string]>, of = session, shutdown = false) =>
  commit(subject(ordinal, tally(files.length, 0, 0), shutdown, of), files, { session: of, window: windowId })

describe("legacyWindowOfSubject", () => {
  it("reads the w-number of an older version's boundary and shutdown commits of this session", () => {
    expect(legacyWindowOfSubject(subject(3, tally(2, 1, 0)), session)).toEqual({ ordinal: 3, shutdown: false })
    expect(legacyWindowOfSubject(subject(12, tally(0, 0, 1), true), session)).toEqual({ ordinal: 12, shutdown: true })
  })

  it("leaves out another session's commits, restores, tidies and the user's own commits", () => {
    expect(legacyWindowOfSubject(subject(3, tally(1, 0, 0), false, other), session)).toBeUndefined()
    expect(legacyWindowOfSubject(commitMessage({ _tag: "Restore", address: "plan.md", from: "abcdef123456" }, session, tally(0, 1, 0)), session)).toBeUndefined()
    expect(legacyWindowOfSubject(commitMessage({ _tag: "Tidy", phase: "after" }, session, tally(0, 1, 1)), session)).toBeUndefined()
    for (const text of [
      "w3 notes: tidy up",
      `w3 of session ${shortSessionId(session)}`,
      `fix: w3 of session ${shortSessionId(session)}: +1 ~0 −0`,
      `w0 of session ${shortSessionId(session)}: +1 ~0 −0`,
      `w3 of session ${shortSessionId(session)}: +1 ~0 -0`,
      "Merge branch 'main'"
    ]) expect(legacyWindowOfSubject(text, session), text).toBeUndefined()
  })
})

describe("windowNoteChanges", () => {
  it("gives each window its counts and note paths by window id, from newest-first commits, skipping everything that is not this session's window commit", () => {
    const log = [
      commit("my own edit of the notes", [["M", "project/x/decisions.md"]]),
      commit(subject(3, tally(0, 1, 1), true), [["M", "sessions/s/plan.md"], ["D", "user/old.md"]], { session, window: "pcx:s:33333333" }),
      keyed(2, "pcx:o:22222222", [["A", "sessions/o/theirs.md"]], other),
      commit(commitMessage({ _tag: "Restore", address: "plan.md", from: "abc" }, session, tally(0, 1, 0)), [["M", "sessions/s/plan.md"]], { session }),
      commit(subject(2, tally(0, 1, 0)), [["M", "sessions/s/plan.md"]], { session, window: "pcx:s:22222222" }),
      keyed(1, "pcx:s:root", [["A", "sessions/s/plan.md"], ["A", "user/prefs.md"]])
    ]
    const changes = windowNoteChanges(log, session, (path) => path.replace(/^sessions\/s\//, ""))
    expect([...changes.byWindowId.keys()].sort()).toEqual(["pcx:s:22222222", "pcx:s:33333333", "pcx:s:root"])
    expect(changes.legacyByOrdinal.size).toBe(0)
    expect(changes.byWindowId.get("pcx:s:root")).toEqual({
      added: 2,
      modified: 0,
      deleted: 0,
      notes: [{ address: "plan.md", kind: "added" }, { address: "user/prefs.md", kind: "added" }],
      commits: [log[5]!.short]
    })
    expect(changeTally(changes.byWindowId.get("pcx:s:22222222")!)).toBe("+0 ~1 −0")
    expect(changes.byWindowId.get("pcx:s:22222222")!.notes).toEqual([{ address: "plan.md", kind: "modified" }])
    expect(changeTally(changes.byWindowId.get("pcx:s:33333333")!)).toBe("+0 ~1 −1")
    expect(changes.byWindowId.get("pcx:s:33333333")!.notes.map((note) => note.address)).toEqual(["plan.md", "user/old.md"])
  })

  it("never gives a session the commits of a sibling created in the same minute, though their subjects read the same", () => {
    expect(shortSessionId(sibling)).toBe(shortSessionId(session))
    const log = [keyed(1, "pcx:sib:root", [["A", "sessions/sib/theirs.md"]], sibling), keyed(1, "pcx:s:root", [["A", "sessions/s/mine.md"]])]
    expect(log[0]!.subject).toBe(log[1]!.subject)
    const changes = windowNoteChanges(log, session)
    expect([...changes.byWindowId.keys()]).toEqual(["pcx:s:root"])
    expect(noteChangesOf(changes, { id: "pcx:s:root", ordinal: 1 })?.notes).toEqual([{ address: "sessions/s/mine.md", kind: "added" }])
    expect(noteChangesOf(changes, { id: "pcx:sib:root", ordinal: 1 })).toBeUndefined()
  })

  it("tells apart two windows with the same w-number on two tree branches by their ids", () => {
    const changes = windowNoteChanges([keyed(2, "pcx:s:bbbbbbbb", [["A", "b.md"]]), keyed(2, "pcx:s:aaaaaaaa", [["A", "a.md"]])], session)
    expect(noteChangesOf(changes, { id: "pcx:s:aaaaaaaa", ordinal: 2 })?.notes).toEqual([{ address: "a.md", kind: "added" }])
    expect(noteChangesOf(changes, { id: "pcx:s:bbbbbbbb", ordinal: 2 })?.notes).toEqual([{ address: "b.md", kind: "added" }])
    expect(noteChangesOf(changes, { id: "pcx:s:cccccccc", ordinal: 2 })).toBeUndefined()
  })

  it("merges a window's boundary and shutdown commits, one net change per note", () => {
    // Oldest first here, newest first as git log lists them.
    const log = [
      keyed(4, "pcx:s:44444444", [["A", "a.md"], ["A", "gone.md"]]),
      keyed(4, "pcx:s:44444444", [["D", "gone.md"]], session, true),
      keyed(4, "pcx:s:44444444", [["A", "b.md"], ["M", "a.md"]], session, true)
    ].reverse()
    const changes = windowNoteChanges(log, session).byWindowId.get("pcx:s:44444444")!
    expect(changes.notes).toEqual([{ address: "a.md", kind: "added" }, { address: "b.md", kind: "added" }])
    expect(changeTally(changes)).toBe("+2 ~0 −0")
    expect(changes.commits).toHaveLength(3)
  })

  it("reads an older version's commits (no trailers) by w-number when nothing shows their name is shared", () => {
    const log = [
      commit(subject(2, tally(0, 0, 0), true), [["A", "late.md"]]),
      commit(subject(2, tally(0, 0, 0), true), [["M", "late.md"]]),
      commit(subject(2), [["A", "b.md"]]),
      commit(subject(1), [["A", "a.md"]])
    ]
    const changes = windowNoteChanges(log, session)
    expect(changes.byWindowId.size).toBe(0)
    expect(noteChangesOf(changes, { id: "pcx:s:root", ordinal: 1 })?.notes).toEqual([{ address: "a.md", kind: "added" }])
    expect(noteChangesOf(changes, { id: "pcx:s:22222222", ordinal: 2 })?.notes.map((note) => note.address)).toEqual(["b.md", "late.md"])
    // A window's own commits win over older ones of its w-number.
    const mixed = windowNoteChanges([keyed(1, "pcx:s:root", [["A", "new.md"]]), ...log], session)
    expect(noteChangesOf(mixed, { id: "pcx:s:root", ordinal: 1 })?.notes).toEqual([{ address: "new.md", kind: "added" }])
  })

  it("leaves out an older version's commits it cannot match unambiguously", () => {
    const legacy = [commit(subject(2), [["A", "b.md"]]), commit(subject(1), [["A", "a.md"]])]
    // A sibling with the same first 8 characters commits here: every commit without trailers could be its.
    const shared = windowNoteChanges([keyed(1, "pcx:sib:root", [["A", "theirs.md"]], sibling), ...legacy], session)
    expect(shared.legacyByOrdinal.size).toBe(0)
    expect(noteChangesOf(shared, { id: "pcx:s:root", ordinal: 1 })).toBeUndefined()
    // Two boundaries ended a w2: two tree branches, or two sessions; w1 stays.
    const twice = windowNoteChanges([commit(subject(2), [["A", "c.md"]]), ...legacy], session)
    expect([...twice.legacyByOrdinal.keys()]).toEqual([1])
  })

  it("finds nothing in a history of other commits", () => {
    const changes = windowNoteChanges([commit("initial", [["A", "README.md"]])], session)
    expect([changes.byWindowId.size, changes.legacyByOrdinal.size]).toEqual([0, 0])
    expect(windowNoteChanges([], session).byWindowId.size).toBe(0)
  })
})
