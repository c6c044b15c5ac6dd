import { assert, describe, it } from "@effect/vitest"
import { type BootContinuity, type BootIdentity, LatestExcerptLimit, renderBoot } from "../../src/boot/boot.ts"
import { Defaults } from "../../src/settings/policy.ts"
import type { HomeSnapshot, NoteRow, NotesSnapshot } from "../../src/notes/snapshot.ts"
import { ToolName } from "../../src/kernel/protocol.ts"
import { type Home, Homes } from "../../src/kernel/homes.ts"
import { estimateTokens } from "../../src/kernel/tokenCount.ts"
import { MapExcerptLimit } from "../../src/notes/snapshot.ts"

const now = Date.UTC(2025, 4, 1, 12, 0, 0)
const hour = 3_600_000

const identity: BootIdentity = {
  agentName: "pi",
  model: "anthropic/claude-sonnet-4-5",
  modelSlug: "claude-sonnet-4-5",
  sessionId: "sess-1",
  rootWindowId: "root-1",
  currentWindowId: "w-3",
  previousWindowId: "w-2"
}

const prefix = (home: Home) => (home === "session" ? "" : `@${home}/`)

const rowsFor = (home: Home, count: number, homeIndex: number): ReadonlyArray<NoteRow> =>
  Array.from({ length: count }, (_, i) => ({
    home,
    address: `${prefix(home)}note-${i}.md`,
    bytes: 100 + i,
    // Distinct times across homes: home h, note i is (h * 100 + i) hours old.
    updatedMs: now - (homeIndex * 100 + i) * hour,
    title: `Title ${home} ${i}`
  }))

const available = (home: Home, count: number, mapBody?: string): HomeSnapshot => ({
  _tag: "Available",
  home,
  location: home,
  map: mapBody === undefined ? undefined : { address: `${prefix(home)}MAP.md`, body: mapBody, bytes: mapBody.length, updatedMs: now - 1000 * hour },
  recent: rowsFor(home, Math.min(count, 12), Homes.indexOf(home)),
  noteCount: count
})

const snapshotOf = (homes: ReadonlyArray<HomeSnapshot>): NotesSnapshot => ({ takenAt: now, homes })

const fullSnapshot = snapshotOf(Homes.map((home) => available(home, 20, `- ${prefix(home)}note-0: the first note\n- keep this current`)))

describe("boot renderer", () => {
  it("renders the same snapshot to the same bytes", () => {
    const a = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    const copy = JSON.parse(JSON.stringify(fullSnapshot)) as NotesSnapshot
    const b = renderBoot({ identity: { ...identity }, snapshot: copy, budgetTokens: Defaults.bootBudgetTokens, now })
    assert.strictEqual(a.text, b.text)
    assert.strictEqual(Buffer.compare(Buffer.from(a.text), Buffer.from(b.text)), 0)
  })

  it("carries identity, reset line, homes and the recovery protocol", () => {
    const { text } = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    for (const line of ["Agent: pi", "Model: anthropic/claude-sonnet-4-5", "Session: sess-1", "Root window: root-1", "Current window: w-3", "Previous window: w-2"]) {
      assert.include(text, line)
    }
    assert.include(text, "Your working memory was reset")
    for (const form of ["@project/...", "@user/...", "@agent/...", "@model/...", "no prefix"]) assert.include(text, form)
    assert.include(text, "Resume from this session's MAP and latest note")
    // After a reset the boot names what to find notes and the earlier windows with; the other tools describe themselves.
    for (const tool of [ToolName.notesRead, ToolName.notesList, ToolName.notesSearch, ToolName.notesWrite, ToolName.notesUpdate, ToolName.historySearch, ToolName.historyRead, ToolName.contextRemaining, ToolName.wipeMemory]) {
      assert.include(text, tool)
    }
    assert.isTrue(text.indexOf("Resume from this session's MAP and latest note") < text.indexOf("## Notes index"))
    // The first window's boot names no history tool: they are offered from the first reset on.
    const first = renderBoot({ identity: { ...identity, previousWindowId: undefined }, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now }).text
    assert.notInclude(first, "history_")
  })

  it("says a first window is the first, without a previous id", () => {
    const { text } = renderBoot({ identity: { ...identity, previousWindowId: undefined }, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    assert.notInclude(text, "Previous window")
    assert.include(text, "first context window of this session")
  })

  it("shows each home's MAP and its most recent rows under the per-home quota", () => {
    const { text, omittedRows } = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    assert.strictEqual(omittedRows, 0)
    assert.include(text, "MAP: @project/MAP.md\n> - @project/note-0: the first note")
    assert.include(text, "Recent notes (5 of 20; notes_list { \"home\": \"session\" } lists all):")
    assert.include(text, "- note-4.md · \"Title session 4\" · 104 B · updated 4 h ago")
    assert.notInclude(text, "- note-5.md")
    assert.include(text, "Recent notes (3 of 20; notes_list { \"home\": \"@project\" } lists all):")
    assert.notInclude(text, "@project/note-3.md")
    assert.include(text, "@model/note-1.md")
    assert.notInclude(text, "@model/note-2.md")
    assert.notInclude(text, "left out")
  })

  it("removes only an unavailable home's rows and tells how to retry", () => {
    const homes = fullSnapshot.homes.map((home): HomeSnapshot =>
      home.home === "project" ? { _tag: "Unavailable", home: "project", location: "projects/x", reason: "EACCES (PermissionDenied) in readDirectoryEntries" } : home
    )
    const boot = renderBoot({ identity, snapshot: snapshotOf(homes), budgetTokens: Defaults.bootBudgetTokens, now })
    assert.deepStrictEqual(boot.unavailableHomes, ["project"])
    assert.notInclude(boot.text, "@project/note-0.md")
    assert.notInclude(boot.text, "@project/MAP.md")
    assert.include(boot.text, "Unavailable: the home could not be read (EACCES (PermissionDenied) in readDirectoryEntries). Its notes are not shown; retry with notes_list { \"home\": \"@project\" }.")
    for (const address of ["note-0.md", "@user/note-0.md", "@agent/note-0.md", "@model/note-0.md"]) assert.include(boot.text, `- ${address}`)
    assert.include(boot.text, "Resume from this session's MAP and latest note")
  })

  it("drops the oldest rows first to fit the budget and says how many", () => {
    const full = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: 100_000, now })
    const budget = estimateTokens(full.text) - 60
    const cut = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: budget, now })
    assert.isAtMost(estimateTokens(cut.text), budget)
    assert.isAbove(cut.omittedRows, 0)
    assert.include(cut.text, `${cut.omittedRows} ${cut.omittedRows === 1 ? "row" : "rows"} left out`)
    assert.include(cut.text, "the oldest rows go first")
    assert.include(cut.text, "List them with notes_list.")
    // The oldest candidates are the model's (home index 4), then the agent's.
    assert.notInclude(cut.text, "@model/note-1.md")
    assert.include(cut.text, "- note-0.md")
    assert.include(cut.text, "@project/note-0.md")
  })

  it("keeps the fixed parts and replaces MAP excerpts by pointers, @model first, when rows are not enough", () => {
    const bigMap = "x".repeat(1400)
    const snapshot = snapshotOf(Homes.map((home) => available(home, 3, bigMap)))
    const none = renderBoot({ identity, snapshot, budgetTokens: 100_000, now })
    const budget = estimateTokens(none.text) - 500
    const boot = renderBoot({ identity, snapshot, budgetTokens: budget, now })
    assert.isAtMost(estimateTokens(boot.text), budget)
    assert.strictEqual(boot.omittedRows, 12)
    assert.include(boot.text, "MAP: @model/MAP.md (1.4 KB), left out for the budget; read it with notes_read { \"address\": \"@model/MAP.md\" }.")
    assert.include(boot.text, "MAP: MAP.md\n> xxxx")
    assert.include(boot.text, "12 rows left out and")
  })

  it("quotes this session's latest note whole when it fits, cut with its offset when long, and as a pointer when the budget needs the room", () => {
    const checkpoint = "# Checkpoint\n- goal: ship it\n- next: step 3"
    const session: HomeSnapshot = { ...(available("session", 3) as Extract<HomeSnapshot, { _tag: "Available" }>), latest: { address: "checkpoint.md", body: checkpoint, bytes: checkpoint.length, updatedMs: now - hour } }
    const snapshot = snapshotOf([session, ...Homes.slice(1).map((home) => available(home, 0))])
    const { text } = renderBoot({ identity, snapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    assert.include(text, "Latest note: checkpoint.md\n> # Checkpoint\n> - goal: ship it\n> - next: step 3")
    const long = { ...session, latest: { address: "checkpoint.md", body: "z".repeat(LatestExcerptLimit + 5), bytes: LatestExcerptLimit + 5, updatedMs: now - hour } }
    const cut = renderBoot({ identity, snapshot: snapshotOf([long]), budgetTokens: Defaults.bootBudgetTokens, now }).text
    assert.include(cut, `(Latest note cut at ${LatestExcerptLimit} of ${LatestExcerptLimit + 5} characters; read on with notes_read { "address": "checkpoint.md", "offset": ${LatestExcerptLimit} })`)
    const tight = renderBoot({ identity, snapshot: snapshotOf([long]), budgetTokens: 600, now }).text
    assert.include(tight, "Latest note: checkpoint.md (3.9 KB), left out for the budget; read it with notes_read { \"address\": \"checkpoint.md\" }.")
  })

  it("cuts a long MAP with the offset to read on from", () => {
    const body = "y".repeat(MapExcerptLimit + 10)
    const snapshot = snapshotOf(Homes.map((home) => available(home, 0, home === "user" ? body : undefined)))
    const { text } = renderBoot({ identity, snapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    assert.include(text, `(MAP cut at ${MapExcerptLimit} of ${MapExcerptLimit + 10} characters; read on with notes_read { "address": "@user/MAP.md", "offset": ${MapExcerptLimit} })`)
    // Empty homes are said in one line, after the homes that hold something.
    assert.include(text, "### The user (@user/...)\nMAP: @user/MAP.md")
    assert.isTrue(text.trimEnd().endsWith("No notes yet in: this session, this project, this agent, this model."))
  })

  it("takes relative ages from the given now", () => {
    const a = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now })
    const b = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now: now + 24 * hour })
    assert.include(a.text, "- note-0.md · \"Title session 0\" · 100 B · updated just now")
    assert.include(b.text, "- note-0.md · \"Title session 0\" · 100 B · updated 24 h ago")
  })

  describe("continuity", () => {
    // w1 started 30 h ago, w2 20 h ago, w3 (the one that just ended) 2 h ago.
    const windowStarts = [{ ordinal: 1, startedAt: now - 30 * hour }, { ordinal: 2, startedAt: now - 20 * hour }, { ordinal: 3, startedAt: now - 2 * hour }]
    const continuity = (checkpointed: boolean): BootContinuity => ({ previousOrdinal: 3, checkpointed, windowStarts })
    const sessionNotes = (ages: ReadonlyArray<number>, mapAge?: number): NotesSnapshot =>
      snapshotOf(Homes.map((home) => {
        const base = available(home, home === "session" ? ages.length : 2, home === "session" && mapAge !== undefined ? "- plan" : undefined)
        if (home !== "session" || base._tag !== "Available") return base
        return {
          ...base,
          map: base.map === undefined ? undefined : { ...base.map, updatedMs: now - mapAge! * hour },
          recent: ages.map((age, i) => ({ home, address: `step-${i}.md`, bytes: 10, updatedMs: now - age * hour, title: "" }))
        }
      }))

    it("says the previous window ended with a checkpoint", () => {
      const { text } = renderBoot({ identity, snapshot: sessionNotes([1, 25]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(true) })
      assert.include(text, "The previous window ended with a checkpoint: notes updated in window w3.")
      assert.notInclude(text, "without a checkpoint")
    })

    it("says the previous window ended without a checkpoint, pointing at the digest", () => {
      const { text } = renderBoot({ identity, snapshot: sessionNotes([25]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(false) })
      assert.include(text, "w3 ended without a checkpoint: no note was written in it, so the message after this boot (with its digest, when the reset was automatic) is all that was kept")
    })

    it("says what the previous window wrote when none of it was this session's notes, so the model does not write it again", () => {
      const written = { ...continuity(false), notesWritten: ["@user/preferences.md"] }
      const { text } = renderBoot({ identity, snapshot: sessionNotes([25]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: written })
      assert.include(
        text,
        "w3 ended without a checkpoint in this session's notes (it wrote only @user/preferences.md), so of its work the message after this boot " +
          "(with its digest, when the reset was automatic) is all that was kept; the history tools read w3 in full."
      )
      assert.notInclude(text, "no note was written")
      const many = renderBoot({
        identity,
        snapshot: sessionNotes([25]),
        budgetTokens: Defaults.bootBudgetTokens,
        now,
        continuity: { ...written, notesWritten: ["@user/a.md", "@project/b.md", "@agent/c.md", "@model/d.md"] }
      })
      assert.include(many.text, "(it wrote only @user/a.md, @project/b.md, @agent/c.md and 1 more)")
    })

    it("tells in which window and how long ago the session's notes were last updated", () => {
      const { text } = renderBoot({ identity, snapshot: sessionNotes([25, 19]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(false) })
      assert.include(text, "This session's notes were last updated in window w2, 19 h ago (step-1.md).")
    })

    it("never says the previous window both wrote no note and last updated the notes (a note from a branch /tree left behind)", () => {
      const { text } = renderBoot({ identity, snapshot: sessionNotes([1, 25]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(false) })
      assert.include(text, "w3 ended without a checkpoint")
      assert.include(text, "This session's notes were last updated while w3 ran, though not by it (another branch of this session, another Pi, or an edit by hand), 1 h ago (step-0.md).")
      assert.notInclude(text, "in window w3")
    })

    it("counts the session MAP as a note", () => {
      const { text } = renderBoot({ identity, snapshot: sessionNotes([25], 1), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(true) })
      assert.include(text, "last updated in window w3, 1 h ago (MAP.md).")
    })

    it("names notes older than the session's first window, and a session without notes", () => {
      const old = renderBoot({ identity, snapshot: sessionNotes([40]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(false) })
      assert.include(old.text, "last updated before this session's first window, 40 h ago (step-0.md).")
      const none = renderBoot({ identity, snapshot: sessionNotes([]), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(false) })
      assert.include(none.text, "This session has no notes yet.")
    })

    it("says freshness is unknown when the session home cannot be read", () => {
      const homes = fullSnapshot.homes.map((home): HomeSnapshot =>
        home.home === "session" ? { _tag: "Unavailable", home: "session", location: "sessions/x", reason: "EIO" } : home
      )
      const { text } = renderBoot({ identity, snapshot: snapshotOf(homes), budgetTokens: Defaults.bootBudgetTokens, now, continuity: continuity(true) })
      assert.include(text, "This session's notes could not be read, so when they were last updated is unknown.")
    })

    it("reads as before without continuity", () => {
      const { text } = renderBoot({ identity, snapshot: fullSnapshot, budgetTokens: Defaults.bootBudgetTokens, now })
      assert.notInclude(text, "checkpoint:")
      assert.notInclude(text, "last updated in window")
      assert.notInclude(text, "without a checkpoint")
    })

    it("keeps the continuity lines when the budget cuts rows", () => {
      const snapshot = sessionNotes([1, 2, 3, 4, 5])
      const full = renderBoot({ identity, snapshot, budgetTokens: 100_000, now, continuity: continuity(false) })
      const budget = estimateTokens(full.text) - 40
      const cut = renderBoot({ identity, snapshot, budgetTokens: budget, now, continuity: continuity(false) })
      assert.isAtMost(estimateTokens(cut.text), budget)
      assert.isAbove(cut.omittedRows, 0)
      assert.include(cut.text, "w3 ended without a checkpoint")
      // Freshness comes from the snapshot, not from the rows the budget kept.
      assert.include(cut.text, "last updated while w3 ran, though not by it (another branch of this session, another Pi, or an edit by hand), 1 h ago (step-0.md).")
    })
  })
})
