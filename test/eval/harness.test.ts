import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { runPool } from "../../eval/harness/pool.ts"
import type { JobSpec, RunResult } from "../../eval/harness/types.ts"
import { jobsFor } from "../../eval/run.ts"
import { taskNamed } from "../../eval/tasks/index.ts"
import type { InjectedFailure } from "../../eval/scripted/provider.ts"
import { tempDir } from "../support/tempDirs.ts"

interface Entry {
  readonly type: string
  readonly customType?: string
  readonly usage?: { input: number; output: number; cacheRead: number; cacheWrite: number }
  readonly details?: { source?: string }
  readonly message?: { role: string; usage?: { input: number; output: number; cacheRead: number; cacheWrite: number } }
}

const sessionEntries = (result: RunResult): ReadonlyArray<Entry> => {
  assert.isDefined(result.sessionFile)
  return readFileSync(result.sessionFile!, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Entry)
}

/** Every usage the session file records: the model's replies and Pi's summaries. */
const usageInSession = (entries: ReadonlyArray<Entry>) => {
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  for (const entry of entries) {
    const usage = entry.type === "message" && entry.message?.role === "assistant" ? entry.message.usage : entry.type === "compaction" ? entry.usage : undefined
    if (usage === undefined) continue
    sum.input += usage.input
    sum.output += usage.output
    sum.cacheRead += usage.cacheRead
    sum.cacheWrite += usage.cacheWrite
  }
  return sum
}

// Whole Pi sessions in worker processes: about 20-30 s alone; the margin is for a loaded machine.
const slow = 150_000

const specs = (argv: ReadonlyArray<string>): ReadonlyArray<JobSpec> => {
  const out = tempDir("pi-context-eval-test-")
  return jobsFor(parseArgs([...argv, "--out", out]), process.cwd())
}

describe("npm run eval on the scripted agent", () => {
  it("runs 2 tasks × 2 arms × 1 seed: the compaction arm compacts, the pi-context arm resets, and the results' tokens are the session's usage", async () => {
    const jobs = specs(["--tasks", "build-key,frozen-rules", "--seeds", "1", "--arms", "pi-context,compaction"])
    assert.strictEqual(jobs.length, 4)
    const results = await runPool(jobs, { jobs: 2, maxUsd: undefined })
    assert.strictEqual(results.length, 4)
    for (const result of results) {
      assert.isUndefined(result.failure, `${result.task} ${result.arm}: ${JSON.stringify(result.failure)}`)
      assert.isTrue(result.success, `${result.task} ${result.arm}: ${result.verifierFailures.join("; ")}`)
      const entries = sessionEntries(result)
      const compactions = entries.filter((entry) => entry.type === "compaction" && entry.details?.source !== "pi-context").length
      const resets = entries.filter((entry) => entry.type === "custom" && entry.customType === "pi-context/reset-marker").length
      // The stand-in edits the files it changes, so its windows fill more slowly than whole-file writes did: at least one turnover each.
      if (result.arm === "compaction") {
        assert.isAtLeast(compactions, 1)
        assert.strictEqual(resets, 0)
      } else {
        assert.isAtLeast(resets, 1)
        assert.strictEqual(compactions, 0)
        // The same signals /pi-context report gives: a window a reset, each checkpointed, each next one picked up from the notes.
        assert.strictEqual(result.resets.length, resets + 1)
        for (const window of result.resets.slice(0, -1)) assert.isTrue(window.checkpointWritten, `w${window.w}`)
        for (const window of result.resets.slice(1)) assert.isTrue(window.notesReadAfterReset, `w${window.w}`)
      }
      assert.strictEqual(result.turnovers.total, compactions + resets)
      assert.deepStrictEqual(result.tokens, usageInSession(entries))
      assert.isAbove(result.tokens.cacheWrite + result.tokens.cacheRead, 0)
    }
    // The mid-task question arrives at the same point of the work in both arms: after the same calls of Pi's own tools.
    const workBefore = (result: RunResult) => {
      const entries = sessionEntries(result) as ReadonlyArray<Entry & { message?: { role: string; toolName?: string; content?: unknown } }>
      const question = taskNamed(result.task).messages(1).find((message) => message.when === "progress")!
      const at = entries.findIndex((entry) => entry.message?.role === "user" && JSON.stringify(entry.message.content).includes(question.text.slice(0, 40)))
      assert.isAbove(at, 0, `${result.task} ${result.arm}: the question was sent`)
      return entries.slice(0, at).filter((entry) => entry.message?.role === "toolResult" && ["read", "bash", "edit", "write"].includes(entry.message.toolName ?? "")).length
    }
    for (const task of ["build-key", "frozen-rules"]) {
      const [a, b] = ["pi-context", "compaction"].map((arm) => workBefore(results.find((result) => result.task === task && result.arm === arm)!))
      assert.strictEqual(a, b, task)
      assert.isAtLeast(a!, taskNamed(task).messages(1).find((message) => message.when === "progress")!.afterWorkCalls!)
    }
  }, slow)
})

describe("the ext: arm", () => {
  it("loads any Pi extension by path, as pi -e does, next to Pi's compaction", async () => {
    const dir = tempDir("pi-context-eval-ext-")
    writeFileSync(join(dir, "marker.ts"), 'export default function (pi) {\n  pi.on("session_start", () => pi.appendEntry("eval-test/loaded", { ok: true }))\n}\n')
    const [spec] = specs(["--tasks", "log-clue", "--seeds", "1", "--arms", `ext:${join(dir, "marker.ts")}`])
    const [result] = await runPool([spec!], { jobs: 1, maxUsd: undefined })
    assert.isUndefined(result!.failure, JSON.stringify(result!.failure))
    assert.strictEqual(result!.arm, `ext:${join(dir, "marker.ts")}`)
    assert.isTrue(sessionEntries(result!).some((entry) => entry.type === "custom" && entry.customType === "eval-test/loaded"))
    assert.isAtLeast(result!.turnovers.compactions, 1)
  }, slow)
})

describe("the fresh arm, the upper bound", () => {
  it("runs the task with no window pressure: no compaction, no pi-context, the model's own window, nothing turned over", async () => {
    const [spec] = specs(["--tasks", "log-clue", "--seeds", "1", "--arms", "fresh"])
    const [result] = await runPool([spec!], { jobs: 1, maxUsd: undefined })
    assert.isUndefined(result!.failure, JSON.stringify(result!.failure))
    assert.isTrue(result!.success)
    assert.strictEqual(result!.window, 1_000_000)
    assert.strictEqual(result!.turnovers.total, 0)
    assert.isFalse(sessionEntries(result!).some((entry) => entry.customType?.startsWith("pi-context/") === true))
  }, slow)
})

describe("a provider that fails", () => {
  const failing = (failure: InjectedFailure): Record<string, InjectedFailure> => Object.fromEntries([1, 2, 3, 4].map((call) => [String(call), failure]))

  it("is recorded in that run's result (429 with retry-after, 500, context overflow, a hang past the timeout) and the other runs go on", async () => {
    const [template] = specs(["--tasks", "log-clue", "--seeds", "1", "--arms", "none"])
    const base: JobSpec = { ...template!, callTimeoutMs: 1_000, retry: { maxRetries: 1, baseDelayMs: 10 } }
    const jobs: ReadonlyArray<JobSpec> = [
      { ...base, runDir: join(base.runDir, "429"), failures: failing({ kind: "rate-limit", retryAfterSeconds: 1 }) },
      { ...base, runDir: join(base.runDir, "500"), failures: failing({ kind: "server-error" }) },
      { ...base, runDir: join(base.runDir, "overflow"), failures: failing({ kind: "context-overflow" }) },
      { ...base, runDir: join(base.runDir, "hang"), failures: failing({ kind: "hang" }) },
      { ...base, arm: "compaction", runDir: join(base.runDir, "ok") }
    ]
    const results = await runPool(jobs, { jobs: 2, maxUsd: undefined })
    const byDir = (dir: string) => results.find((result) => result.sessionFile?.includes(`/${dir}/`))
    assert.strictEqual(byDir("429")?.failure?.kind, "rate-limit")
    assert.match(byDir("429")?.failure?.message ?? "", /retry-after/)
    assert.strictEqual(byDir("500")?.failure?.kind, "server-error")
    assert.strictEqual(byDir("overflow")?.failure?.kind, "context-overflow")
    assert.strictEqual(byDir("hang")?.failure?.kind, "timeout")
    for (const dir of ["429", "500", "overflow", "hang"]) assert.isFalse(byDir(dir)?.success, dir)
    // The run after the failures went on and finished.
    const ok = byDir("ok")
    assert.isDefined(ok)
    assert.isUndefined(ok!.failure)
    assert.isAtLeast(ok!.modelCalls, 10)
    assert.strictEqual(readdirSync(join(base.runDir, "ok", "session")).length, 1)
  }, slow)
})
