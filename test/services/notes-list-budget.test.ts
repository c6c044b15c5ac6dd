import { assert, layer } from "@effect/vitest"
import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { homeSegments } from "../../src/notes/identity.ts"
import type { ScanDeadline } from "../../src/kernel/scanDeadline.ts"
import { type ListResult, NotesStore } from "../../src/notes/NotesStore.ts"
import { CurrentScanDeadline } from "../../src/kernel/CurrentScanDeadline.ts"
import { identityAt, liveNotesLayer } from "../support/notesStoreFixtures.ts"
import { tempRoot } from "../support/notesVersionsFixtures.ts"

/** A budget already spent at its first look: the scan stops as early as it may, every call. */
const spentAtOnce: ScanDeadline = { spent: () => true }

const Notes = 3_000
const noteName = (i: number): string => `note-${i % 7 === 0 ? "1999" : "2024"}-${i}.md`

layer(liveNotesLayer)("notes_list on its scan budget", (it) => {
  it.effect("a glob over a large root stops with a cursor, and paging on reaches exactly the notes an unbounded listing finds", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-list-budget-")
      const identity = identityAt(root)
      const dir = join(root, ...homeSegments(identity, "project"))
      for (let i = 0; i < Notes; i++) {
        if (i % 100 === 0) mkdirSync(join(dir, `topic-${i / 100}`), { recursive: true })
        const file = join(dir, `topic-${Math.floor(i / 100)}`, noteName(i))
        writeFileSync(file, `# Note ${i}\n`)
        // Distinct ages, so the order is the same on every call.
        utimesSync(file, new Date(1_700_000_000_000 + i * 1000), new Date(1_700_000_000_000 + i * 1000))
      }
      const store = yield* NotesStore
      const request = { pattern: "**/*-1999*", limit: 50 }
      const unbounded: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* store.list(identity, { ...request, ...(cursor === undefined ? {} : { cursor }) })
        unbounded.push(...page.rows.map((row) => row.address))
        assert.isFalse(page.stoppedEarly)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      assert.strictEqual(unbounded.length, Array.from({ length: Notes }, (_, i) => noteName(i)).filter((name) => name.includes("-1999")).length)

      const first = yield* store.list(identity, request).pipe(Effect.provideService(CurrentScanDeadline, () => spentAtOnce))
      assert.isTrue(first.stoppedEarly)
      assert.isDefined(first.nextCursor)
      const paged = [...first.rows.map((row) => row.address)]
      let calls = 1
      cursor = first.nextCursor
      while (cursor !== undefined) {
        const page: ListResult = yield* store.list(identity, { ...request, cursor }).pipe(Effect.provideService(CurrentScanDeadline, () => spentAtOnce))
        paged.push(...page.rows.map((row) => row.address))
        cursor = page.nextCursor
        calls++
        assert.isBelow(calls, 100)
      }
      assert.deepStrictEqual(paged, unbounded)
      assert.isAbove(calls, Math.ceil(unbounded.length / 50))
    }))
})
