import { assert, describe, it } from "@effect/vitest"
import { type LintNote, lintNotes, mapReferences, renderLint } from "../../src/notes/lint.ts"

const day = 86_400_000
const now = 1_000 * day

const note = (home: LintNote["home"], path: string, body: string, ageDays = 1): LintNote => ({ home, path, body, updatedMs: now - ageDays * day })

const lint = (notes: ReadonlyArray<LintNote>) => lintNotes({ notes, now, staleDays: 90, bootBudgetTokens: 100 })

describe("notes lint", () => {
  it("reads a MAP's links, wiki links, backticked addresses and path list items, not prose or URLs", () => {
    const body = [
      "# Map",
      "- [Plan](plan.md) and [site](https://example.org)",
      "- [[design/db]] · `@user/prefs` · `not an address`",
      "- topic/notes: what it holds",
      "- plain words: not a path",
      "1. ./decisions.md — why"
    ].join("\n")
    assert.deepStrictEqual(mapReferences(body), [
      { line: 2, target: "plan.md" },
      { line: 3, target: "design/db" },
      { line: 3, target: "@user/prefs" },
      { line: 4, target: "topic/notes" },
      { line: 6, target: "decisions.md" }
    ])
  })

  it("finds MAP entries that point nowhere, resolving plain targets inside the MAP's home", () => {
    const findings = lint([
      note("project", "MAP.md", "- [db](db.md)\n- [gone](gone.md)\n- `@user/prefs`\n- `@user/missing`"),
      note("project", "db.md", "postgres"),
      note("user", "prefs.md", "tabs")
    ])
    assert.deepStrictEqual(findings.filter((f) => f._tag === "DanglingMapEntry"), [
      { _tag: "DanglingMapEntry", map: "@project/MAP.md", line: 2, target: "gone.md" },
      { _tag: "DanglingMapEntry", map: "@project/MAP.md", line: 4, target: "@user/missing" }
    ])
  })

  it("finds a MAP the boot cuts and a note larger than a whole boot", () => {
    const findings = lint([note("session", "MAP.md", "m".repeat(1_501)), note("session", "big.md", "b".repeat(401)), note("session", "ok.md", "o".repeat(400))])
    assert.deepStrictEqual(findings.filter((f) => f._tag === "TooLargeForBoot"), [
      { _tag: "TooLargeForBoot", address: "MAP.md", chars: 1_501, limit: 1_500, isMap: true },
      { _tag: "TooLargeForBoot", address: "big.md", chars: 401, limit: 400, isMap: false }
    ])
  })

  it("groups notes with the same content across homes, ignoring trailing whitespace, never empty ones", () => {
    const findings = lint([
      note("session", "a.md", "same\ntext\n"),
      note("agent", "b.md", "same  \ntext"),
      note("model", "c.md", "other"),
      note("user", "e1.md", ""),
      note("user", "e2.md", " ")
    ])
    assert.deepStrictEqual(findings.filter((f) => f._tag === "Duplicate"), [{ _tag: "Duplicate", addresses: ["@agent/b.md", "a.md"] }])
  })

  it("finds notes untouched for the configured number of days", () => {
    const findings = lint([note("project", "old.md", "x", 120), note("project", "fresh.md", "y", 89)])
    assert.deepStrictEqual(findings.filter((f) => f._tag === "Stale"), [{ _tag: "Stale", address: "@project/old.md", days: 120 }])
  })

  it("renders one line per class, with examples for each problem found", () => {
    const lines = renderLint(lint([note("project", "old.md", "x", 120)]), 90)
    assert.deepStrictEqual(lines, [
      "ok   notes lint: no MAP entries that point nowhere",
      "ok   notes lint: no notes larger than a boot can show",
      "ok   notes lint: no duplicate notes",
      "FAIL notes lint: 1 notes untouched for a long time (90+ days)",
      "       @project/old.md was last updated 120 days ago; still true? retire it with notes_update retire: true"
    ])
  })
})
