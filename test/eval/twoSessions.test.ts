import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { runPool } from "../../eval/harness/pool.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { jobsFor } from "../../eval/run.ts"
import { taskNamed } from "../../eval/tasks/index.ts"
import { tempDir } from "../support/tempDirs.ts"

interface Entry {
  readonly type: string
  readonly message?: { readonly role: string; readonly toolName?: string; readonly content?: unknown }
}

const entriesOf = (file: string): ReadonlyArray<Entry> => readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Entry)
const textOf = (entry: Entry): string => JSON.stringify(entry.message?.content ?? "")

/** The run's session files, oldest first (their names begin with the time they were opened). */
const sessionFiles = (result: RunResult): ReadonlyArray<string> => {
  const dir = dirname(result.sessionFile!)
  return readdirSync(dir).filter((name) => name.endsWith(".jsonl")).sort().map((name) => join(dir, name))
}

// Whole Pi sessions in worker processes, two per run; the margin is for a loaded machine.
const slow = 150_000

describe("a task of two sessions", () => {
  it("runs a fresh Pi session the second time in the same project and notes root: it sees the notes the first wrote, never the first's chat", async () => {
    const out = tempDir("pi-context-eval-sessions-")
    const jobs = jobsFor(parseArgs(["--tasks", "handover-project", "--seeds", "1", "--arms", "pi-context,compaction", "--out", out]), process.cwd())
    const results = await runPool(jobs, { jobs: 2, maxUsd: undefined })
    const messages = taskNamed("handover-project").messages(1)
    const [start, stop, resume] = ["start", "stop", "resume"].map((id) => messages.find((message) => message.id === id)!.text)
    for (const result of results) {
      assert.isUndefined(result.failure, `${result.arm}: ${JSON.stringify(result.failure)}`)
      const [first, second, ...more] = sessionFiles(result)
      assert.strictEqual(more.length, 0)
      const users = (file: string) => entriesOf(file).filter((entry) => entry.message?.role === "user").map(textOf).join("\n")
      assert.include(users(first!), start!.slice(0, 60))
      assert.include(users(first!), stop!.slice(0, 60))
      // The second session was sent only its own message: nothing of the first's chat reaches it.
      const second_ = entriesOf(second!)
      assert.notInclude(second_.map(textOf).join("\n"), start!.slice(0, 60))
      assert.notInclude(second_.map(textOf).join("\n"), stop!.slice(0, 60))
      assert.include(users(second!), resume!.slice(0, 60))
      // The request outcomes cover both sessions' messages.
      assert.deepStrictEqual(result.requests.map((request) => [request.id, request.sent]), [["start", true], ["receipt", true], ["stop", true], ["resume", true]])
    }
    const piContext = results.find((result) => result.arm === "pi-context")!
    const compaction = results.find((result) => result.arm === "compaction")!
    // pi-context: the second session read the handover note the first wrote into the project's notes, and finished the chain.
    const [, second] = sessionFiles(piContext)
    const handoverRead = entriesOf(second!).find((entry) => entry.message?.role === "toolResult" && entry.message.toolName === "notes_read" && textOf(entry).includes("Desk handover"))
    assert.isDefined(handoverRead)
    assert.include(textOf(handoverRead!), "desk.code4")
    assert.isTrue(piContext.success, piContext.verifierFailures.join("; "))
    // Compaction keeps nothing outside the chat: the second session starts with no code, and says it is blocked.
    assert.isFalse(compaction.success)
    assert.isTrue(compaction.statedBlocked)
    assert.match(compaction.verifierFailures.join("; "), /missing: open 5/)
    // Both sessions' calls are measured: more than either session alone made.
    const callsIn = (file: string) => entriesOf(file).filter((entry) => entry.message?.role === "assistant").length
    const [a, b] = sessionFiles(piContext).map(callsIn)
    assert.strictEqual(piContext.modelCalls, a! + b!)
  }, slow)
})
