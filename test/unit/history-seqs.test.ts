import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { documentText } from "../../src/history/events.ts"
import { buildIndex, eventAt, seqsAt } from "../../src/history/sessionIndex.ts"
import { readPage } from "../../src/history/readPage.ts"
import { windowSummaries } from "../../src/history/render.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import { allEvents, historySession, syncIndex } from "../support/historySession.ts"

/** The seqs each entry created, by entry id, for entries that created any. */
const seqsByEntry = (index: ReturnType<typeof syncIndex>): Record<string, ReadonlyArray<number>> =>
  Object.fromEntries(index.entryAt.map((entry, position) => [entry.id, seqsAt(index, position)]).filter(([, seqs]) => seqs!.length > 0))

const snapshot = (index: ReturnType<typeof syncIndex>) =>
  allEvents(index).map((event) => ({ ...event, text: documentText(event) }))

describe("history seqs", () => {
  it("gives each event one seq in append order and none to plain custom or state entries", () => {
    const session = historySession()
    const user = session.user("hello")
    session.modelChange()
    const assistant = session.assistant("let me look", [{ id: "c1", name: "read", args: { path: "a.ts" } }, {
      id: "c2",
      name: "bash",
      args: { command: "ls" }
    }])
    session.toolResult("c1", "read", "file a")
    session.toolResult("c2", "bash", "a.ts b.ts")
    session.marker("pcx:01234567:aaaaaaaa")
    const boot = session.boot("pcx:01234567:aaaaaaaa", "boot text")
    const compaction = session.compaction("what happened")
    const index = syncIndex(session)

    assert.deepStrictEqual(seqsByEntry(index), { [user]: [1], [assistant]: [2, 3, 4], [boot]: [5], [compaction]: [6] })
    assert.deepStrictEqual(allEvents(index).map((event) => `${event.seq}:${event.role}:${event.kind}`), [
      "1:user:user",
      "2:assistant:assistant",
      "3:tool:read",
      "4:tool:bash",
      "5:context:pi-context/boot",
      "6:context:compaction"
    ])
  })

  it("pairs a call with its result into one event at the call's seq", () => {
    const session = historySession()
    session.assistant("", [{ id: "c1", name: "grep", args: { pattern: "needle" } }])
    session.toolResult("c1", "grep", "src/x.ts:3: needle", true)
    const index = syncIndex(session)

    assert.strictEqual(allEvents(index).length, 1)
    const event = allEvents(index)[0]!
    assert.strictEqual(event.status, "error")
    assert.strictEqual(documentText(event), "grep {\"pattern\":\"needle\"}\nstatus: error\n--- output ---\nsrc/x.ts:3: needle")
  })

  it("keeps a call without a result as an unfinished event, completed in place when the result arrives", () => {
    const session = historySession()
    session.assistant("running", [{ id: "c1", name: "bash", args: { command: "sleep 1" } }])
    const index = syncIndex(session)
    assert.strictEqual(allEvents(index)[1]!.status, "unfinished")
    assert.strictEqual(documentText(allEvents(index)[1]!), "bash {\"command\":\"sleep 1\"}\nstatus: unfinished")

    session.toolResult("c1", "bash", "done")
    syncIndex(session, index)
    assert.strictEqual(allEvents(index).length, 2)
    assert.strictEqual(allEvents(index)[1]!.status, "ok")
    assert.include(documentText(allEvents(index)[1]!), "--- output ---\ndone")
  })

  it("makes a result without a matching call, and a !bash run, standalone tool events", () => {
    const session = historySession()
    session.toolResult("ghost", "read", "orphan output")
    session.bash("npm test", "1 failing", 1)
    session.bash("sleep 100", "", undefined)
    const index = syncIndex(session)

    assert.deepStrictEqual(allEvents(index).map((event) => [event.role, event.kind, event.status]), [
      ["tool", "read", "ok"],
      ["tool", "bash", "error"],
      ["tool", "bash", "unfinished"]
    ])
    assert.strictEqual(documentText(allEvents(index)[1]!), "bash {\"command\":\"npm test\"}\nstatus: error (exit 1)\n--- output ---\n1 failing")
  })

  it("never renumbers on appends: an extended index equals one built from scratch", () => {
    const session = historySession()
    session.user("one")
    session.assistant("calling", [{ id: "c1", name: "read" }])
    const index = syncIndex(session)
    const before = snapshot(index).slice(0, 1)

    session.toolResult("c1", "read", "content")
    session.user("two")
    session.assistant("", [{ id: "c2", name: "edit" }, { id: "c3", name: "edit" }])
    session.toolResult("c3", "edit", "ok 3")
    syncIndex(session, index)

    assert.deepStrictEqual(snapshot(index).slice(0, 1), before)
    assert.deepStrictEqual(snapshot(index), snapshot(buildIndex(session.sessionId, session.entries)))
    assert.deepStrictEqual(allEvents(index).map((event) => event.status), [undefined, undefined, "ok", undefined, "unfinished", "ok"])
  })

  it("never renumbers on branching, and answers not_on_branch for the abandoned branch", () => {
    const session = historySession()
    const first = session.user("first question")
    session.assistant("first answer")
    session.user("abandoned question")
    const abandoned = session.assistant("abandoned answer")
    const index = syncIndex(session)
    const seqsBefore = seqsByEntry(index)

    session.moveTo(first)
    const retried = session.assistant("second answer")
    syncIndex(session, index)

    assert.deepStrictEqual(Object.fromEntries(Object.entries(seqsByEntry(index)).filter(([id]) => id in seqsBefore)), seqsBefore)
    assert.deepStrictEqual(seqsByEntry(index)[retried], [5])
    assert.deepStrictEqual(index.branch.seqs, [1, 5])
    const read = readPage(index, { seq: seqsByEntry(index)[abandoned]![0]! })
    assert.isTrue(Result.isFailure(read) && read.failure._tag === "NotOnBranch")
    const missing = readPage(index, { seq: 99 })
    assert.isTrue(Result.isFailure(missing) && missing.failure._tag === "EventNotFound")
  })

  it("extends the branch view along appended entries and rebuilds it only when the leaf jumps", () => {
    const session = historySession()
    const first = session.user("a")
    const index = syncIndex(session)
    for (let round = 0; round < 5; round++) {
      session.assistant(`answer ${round}`)
      syncIndex(session, index)
    }
    assert.strictEqual(index.branchRebuilds, 0)
    session.moveTo(first)
    syncIndex(session, index)
    assert.strictEqual(index.branchRebuilds, 1)
    assert.deepStrictEqual(index.branch.seqs, [1])
  })

  it("opens a window at each reset marker on the branch, the root id derived from the session id", () => {
    const session = historySession("feedface-0000-4000")
    session.user("in root")
    session.marker("pcx:feedface:11111111")
    session.boot("pcx:feedface:11111111", "boot 1")
    session.user("in second")
    session.marker("pcx:feedface:22222222")
    const index = syncIndex(session)

    assert.deepStrictEqual(windowSummaries(index).map(({ id, firstSeq, lastSeq, count, current }) => ({ id, firstSeq, lastSeq, count, current })), [
      { id: rootWindowId(session.sessionId), firstSeq: 1, lastSeq: 1, count: 1, current: false },
      { id: "pcx:feedface:11111111", firstSeq: 2, lastSeq: 3, count: 2, current: false },
      { id: "pcx:feedface:22222222", firstSeq: undefined, lastSeq: undefined, count: 0, current: true }
    ])
    assert.strictEqual(rootWindowId(session.sessionId), rootWindowId("feedface-0000-4000"))
    assert.notStrictEqual(rootWindowId(session.sessionId), rootWindowId("feedface-0000-4001"))
    assert.strictEqual(windowSummaries(index)[1]!.startedAt, Date.parse(session.entries[1]!.timestamp))
    assert.deepStrictEqual(windowSummaries(index).map((window) => window.ordinal), [1, 2, 3])
  })

  it("builds a document only when it is read, and each once: indexing reads shapes, an extension touches only appended entries", () => {
    const session = historySession()
    for (let i = 0; i < 50; i++) session.user(`message ${i}`)
    const index = syncIndex(session)
    assert.strictEqual(index.documentBuilds, 0)
    assert.strictEqual(documentText(eventAt(index, 7)!), "message 6")
    assert.strictEqual(index.documentBuilds, 1)
    allEvents(index)
    allEvents(index)
    assert.strictEqual(index.documentBuilds, 50)

    session.assistant("", [{ id: "x", name: "read" }])
    syncIndex(session, index)
    assert.strictEqual(documentText(eventAt(index, 51)!), "read {}\nstatus: unfinished")
    session.toolResult("x", "read", "out")
    session.user("last")
    syncIndex(session, index)
    assert.strictEqual(index.documentBuilds, 51)
    // The call read before its result arrived is built again, completed; the old documents are not touched.
    assert.deepStrictEqual(allEvents(index).slice(50).map((event) => [event.status, documentText(event)]), [
      ["ok", "read {}\nstatus: ok\n--- output ---\nout"],
      [undefined, "last"]
    ])
    assert.strictEqual(index.documentBuilds, 53)
  })

  it("indexes afresh when the session no longer starts with what was indexed", () => {
    const session = historySession()
    session.user("a")
    const index = syncIndex(session)
    const other = historySession(session.sessionId, "f")
    other.user("different")
    other.user("entries")
    const fresh = syncIndex(other, index)
    assert.notStrictEqual(fresh, index)
    assert.deepStrictEqual(allEvents(fresh).map((event) => documentText(event)), ["different", "entries"])
  })
})

describe("reset compactions", () => {
  it("a reset's compaction (older sessions: empty, then a note to the user) gets no seq, a real compaction summary gets one", async () => {
    const { draftsOfEntry } = await import("../../src/history/events.ts")
    const base = { type: "compaction", id: "c", parentId: null, timestamp: "", firstKeptEntryId: "c", tokensBefore: 0 }
    assert.deepStrictEqual(draftsOfEntry({ ...base, summary: "", details: { source: "pi-context", windowId: "w" } }), [])
    const noted = "pi-context reset (/wipe-memory), not a compaction: nothing was summarised."
    assert.deepStrictEqual(draftsOfEntry({ ...base, summary: noted, details: { source: "pi-context", windowId: "w" } }), [])
    assert.lengthOf(draftsOfEntry({ ...base, summary: "what happened so far" }), 1)
  })
})
