import { describe, expect, it } from "vitest"
import { commitMessage, type HistoryCommit, shortSessionId } from "../../src/domain/notes/history.ts"
import { changeTally, windowNoteChanges, windowOfSubject } from "../../src/domain/notes/windowChanges.ts"

const session = "0123abcd-ef45-7000-8000-000000000000"
const other = "99998888-0000-7000-8000-000000000000"

let n = 0
const commit = (subject: string, files: ReadonlyArray<readonly [string, string]>): HistoryCommit => {
  n++
  return { hash: `${n}`.padStart(40, "0"), short: `c${n}`, date: "2026-12-01T09:00:00Z", author: "pi-context", subject, files: files.map(([status, path]) => ({ status, path })) }
}
const tally = (added: number, modified: number, deleted: number) => ({ added, modified, deleted })

describe("windowOfSubject", () => {
  it("reads the w-number of this session's boundary and shutdown commits, as commitMessage writes them", () => {
    expect(windowOfSubject(commitMessage({ _tag: "Window", ordinal: 3 }, session, tally(2, 1, 0)), session)).toBe(3)
    expect(windowOfSubject(commitMessage({ _tag: "Shutdown", ordinal: 12 }, session, tally(0, 0, 1)), session)).toBe(12)
  })

  it("leaves out another session's commits, restores, tidies and the user's own commits", () => {
    expect(windowOfSubject(commitMessage({ _tag: "Window", ordinal: 3 }, other, tally(1, 0, 0)), session)).toBeUndefined()
    expect(windowOfSubject(commitMessage({ _tag: "Restore", address: "plan.md", from: "abcdef123456" }, session, tally(0, 1, 0)), session)).toBeUndefined()
    expect(windowOfSubject(commitMessage({ _tag: "Tidy", phase: "after" }, session, tally(0, 1, 1)), session)).toBeUndefined()
    for (const subject of [
      "w3 notes: tidy up",
      `w3 of session ${shortSessionId(session)}`,
      `fix: w3 of session ${shortSessionId(session)}: +1 ~0 −0`,
      `w0 of session ${shortSessionId(session)}: +1 ~0 −0`,
      `w3 of session ${shortSessionId(session)}: +1 ~0 -0`,
      "Merge branch 'main'"
    ]) expect(windowOfSubject(subject, session), subject).toBeUndefined()
  })
})

describe("windowNoteChanges", () => {
  const w = (ordinal: number, counts = tally(0, 0, 0), shutdown = false) =>
    commitMessage({ _tag: shutdown ? "Shutdown" : "Window", ordinal }, session, counts)

  it("gives each window its counts and note paths, from newest-first commits, skipping everything that is not this session's window commit", () => {
    const log = [
      commit("my own edit of the notes", [["M", "project/x/decisions.md"]]),
      commit(w(3, tally(0, 1, 1), true), [["M", "sessions/s/plan.md"], ["D", "user/old.md"]]),
      commit(commitMessage({ _tag: "Window", ordinal: 2 }, other, tally(1, 0, 0)), [["A", "sessions/o/theirs.md"]]),
      commit(commitMessage({ _tag: "Restore", address: "plan.md", from: "abc" }, session, tally(0, 1, 0)), [["M", "sessions/s/plan.md"]]),
      commit(w(2, tally(0, 1, 0)), [["M", "sessions/s/plan.md"]]),
      commit(w(1, tally(2, 0, 0)), [["A", "sessions/s/plan.md"], ["A", "user/prefs.md"]])
    ]
    const changes = windowNoteChanges(log, session, (path) => path.replace(/^sessions\/s\//, ""))
    expect([...changes.keys()].sort()).toEqual([1, 2, 3])
    expect(changes.get(1)).toEqual({ added: 2, modified: 0, deleted: 0, notes: [{ address: "plan.md", kind: "added" }, { address: "user/prefs.md", kind: "added" }], commits: [log[5]!.short] })
    expect(changeTally(changes.get(2)!)).toBe("+0 ~1 −0")
    expect(changes.get(2)!.notes).toEqual([{ address: "plan.md", kind: "modified" }])
    expect(changeTally(changes.get(3)!)).toBe("+0 ~1 −1")
    expect(changes.get(3)!.notes.map((note) => note.address)).toEqual(["plan.md", "user/old.md"])
  })

  it("merges a window's boundary and shutdown commits, one net change per note", () => {
    // Oldest first here, newest first as git log lists them.
    const log = [
      commit(w(4, tally(2, 0, 0)), [["A", "a.md"], ["A", "gone.md"]]),
      commit(w(4, tally(0, 0, 1), true), [["D", "gone.md"]]),
      commit(w(4, tally(1, 1, 0), true), [["A", "b.md"], ["M", "a.md"]])
    ].reverse()
    const changes = windowNoteChanges(log, session).get(4)!
    expect(changes.notes).toEqual([{ address: "a.md", kind: "added" }, { address: "b.md", kind: "added" }])
    expect(changeTally(changes)).toBe("+2 ~0 −0")
    expect(changes.commits).toHaveLength(3)
  })

  it("finds nothing in a history of other commits", () => {
    expect(windowNoteChanges([commit("initial", [["A", "README.md"]])], session).size).toBe(0)
    expect(windowNoteChanges([], session).size).toBe(0)
  })
})
