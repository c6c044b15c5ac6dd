import { assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { runPool } from "../../eval/harness/pool.ts"
import { isInfrastructureFailure } from "../../eval/harness/types.ts"
import { jobsFor } from "../../eval/run.ts"
import { tempDir } from "../support/tempDirs.ts"

describe("a slow model's compaction summary", () => {
  it("is not model silence: a summary slower than --call-timeout lets the compaction arm finish, and one past --summary-timeout ends the run as the arm's own failure", async () => {
    const out = tempDir("pi-context-eval-slow-")
    const [template] = jobsFor(parseArgs(["--tasks", "log-clue", "--seeds", "1", "--arms", "compaction", "--out", out]), process.cwd())
    // Every call answers at once except the summaries, which sit silent for twice the call limit.
    const slow = { ...template!, callTimeoutMs: 400, summaryDelayMs: 1_000 }
    const results = await runPool([
      { ...slow, runDir: join(template!.runDir, "within") },
      { ...slow, runDir: join(template!.runDir, "over"), summaryTimeoutMs: 300 }
    ], { jobs: 2, maxUsd: undefined })
    // Results come in the order the runs end.
    const finished = results.find((result) => result.sessionFile?.includes("/within/"))
    const overLimit = results.find((result) => result.sessionFile?.includes("/over/"))
    assert.isUndefined(finished!.failure, JSON.stringify(finished!.failure))
    assert.isTrue(finished!.success, finished!.verifierFailures.join("; "))
    assert.isAtLeast(finished!.turnovers.compactions, 1)
    assert.strictEqual(overLimit!.failure?.kind, "timeout")
    assert.match(overLimit!.failure!.message, /^the compaction summary passed its 300 ms limit$/)
    // Counted in the figures as the arm's failure, not dropped as the harness's.
    assert.isFalse(isInfrastructureFailure(overLimit!.failure))
  }, 150_000)
})
