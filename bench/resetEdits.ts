/**
 * What hiding the ended window from Pi's own context costs at a reset. The
 * boundary carries one context edit per entry Pi's context still holds
 * (stillInPiContext); Pi checks each edit's target against the whole branch,
 * and applies the drafts twice for a boundary made during a run (a preview,
 * then the commit), so the cost grows with the window's entries times the
 * branch's length. Measured on Pi's own SessionManager, for branches of
 * prior windows already hidden (as after earlier resets) and an ending
 * window of W messages. Writes bench/results/resetEdits.json.
 *
 *   npm exec -- node bench/resetEdits.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import type { RawEntry } from "../src/kernel/entries.ts"
import { stillInPiContext } from "../src/window/piContext.ts"

const message = (i: number) => ({ role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: "x".repeat(400) }], timestamp: i }) as never

/** A session of `branch` messages whose first `branch - window` are hidden already, as earlier resets leave them. */
const sessionOf = (branch: number, window: number) => {
  const manager = SessionManager.inMemory("/tmp")
  for (let i = 0; i < branch - window; i++) manager.appendMessage(message(i))
  for (const entry of manager.getBranch()) manager.appendContextEdit(entry.id, null)
  for (let i = 0; i < window; i++) manager.appendMessage(message(i))
  return manager
}

const rows: Array<{ readonly branch: number; readonly window: number; readonly targets: number; readonly targetsMs: number; readonly applyMs: number }> = []
for (const [branch, window] of [[2_000, 100], [10_000, 300], [20_000, 600]] as const) {
  const manager = sessionOf(branch, window)
  const raw = manager.getBranch() as unknown as ReadonlyArray<RawEntry>
  let start = performance.now()
  const targets = stillInPiContext(raw)
  const targetsMs = performance.now() - start
  start = performance.now()
  // The preview Pi builds to validate the drafts, then the commit: the same edits applied twice.
  for (let pass = 0; pass < 2; pass++) {
    const copy = SessionManager.inMemory("/tmp", undefined, [manager.getHeader()!, ...manager.getBranch()])
    for (const id of targets) copy.appendContextEdit(id, null)
  }
  const applyMs = performance.now() - start
  rows.push({ branch: manager.getBranch().length, window, targets: targets.length, targetsMs: Math.round(targetsMs), applyMs: Math.round(applyMs) })
}

console.log("A reset's context edits, applied as Pi applies a boundary's drafts during a run (preview + commit):")
for (const row of rows) {
  console.log(
    `  branch of ${row.branch.toLocaleString("en-US")} entries, ending window of ${row.window}: ` +
      `${row.targets} edits, found in ${row.targetsMs} ms, applied in ${row.applyMs} ms`
  )
}
const out = join(dirname(fileURLToPath(import.meta.url)), "results", "resetEdits.json")
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, `${JSON.stringify({ rows }, null, 2)}\n`)
