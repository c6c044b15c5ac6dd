import { assert, describe, it } from "@effect/vitest"
import { parseArgs } from "../../eval/harness/args.ts"
import { runPool } from "../../eval/harness/pool.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { jobsFor } from "../../eval/run.ts"
import { startScriptedServer } from "../../eval/scripted/httpServer.ts"
import { taskNamed } from "../../eval/tasks/index.ts"
import { localModelsDir } from "../support/localModels.ts"
import { tempDir } from "../support/tempDirs.ts"

/**
 * The eval's whole path on a model over HTTP, offline: an OpenAI-compatible
 * endpoint on 127.0.0.1 answering as the scripted agent, registered in a
 * temp models.json as a user registers a local server, reached through Pi's
 * real `openai-completions` provider; one task in every arm, against the
 * same runs in process.
 */
const arms = ["pi-context", "compaction", "masking", "none", "fresh"]
const task = "log-clue"

const userSetUp = (port: number) => localModelsDir(port, { id: "scripted", contextWindow: 1_000_000, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } })

const run = async (model: string, userAgentDir?: string): Promise<ReadonlyArray<RunResult>> => {
  const out = tempDir("pi-context-eval-http-out-")
  const specs = jobsFor(parseArgs(["--model", model, "--tasks", task, "--seeds", "1", "--arms", arms.join(","), "--out", out]), process.cwd())
  return runPool(specs.map((spec) => ({ ...spec, ...(userAgentDir === undefined ? {} : { userAgentDir }), retry: { maxRetries: 0, baseDelayMs: 10 } })), { jobs: 2, maxUsd: undefined })
}

describe("the eval over HTTP on a local OpenAI-compatible server", () => {
  it("runs one task in every arm through Pi's openai-completions provider, and each arm ends as it does in process", async () => {
    const server = await startScriptedServer(taskNamed(task).solver)
    const overHttp = await run("local/scripted", userSetUp(server.port)).finally(() => server.close())
    const inProcess = await run("scripted")
    const byArm = (results: ReadonlyArray<RunResult>) => new Map(results.map((result) => [result.arm, result]))
    const [http, local] = [byArm(overHttp), byArm(inProcess)]
    for (const arm of arms) {
      const [a, b] = [http.get(arm)!, local.get(arm)!]
      assert.strictEqual(a.versions.model, "local/scripted")
      assert.strictEqual(a.success, b.success, `${arm}: ${JSON.stringify(a.failure ?? a.verifierFailures)}`)
      assert.strictEqual(a.failure?.kind, b.failure?.kind, arm)
      // The same calls and turnovers; the prompt tokens within a few percent (the wire's transcript is not byte for byte Pi's).
      assert.strictEqual(a.modelCalls, b.modelCalls, arm)
      assert.strictEqual(a.turnovers.total, b.turnovers.total, arm)
      const sent = (result: RunResult) => result.tokens.input + result.tokens.cacheRead + result.tokens.cacheWrite
      assert.closeTo(sent(a) / sent(b), 1, 0.05, arm)
    }
    // The windows turn over over HTTP too: pi-context resets, compaction compacts, the upper bound never turns over.
    assert.isAbove(http.get("pi-context")!.turnovers.resets, 0)
    assert.isAbove(http.get("compaction")!.turnovers.compactions, 0)
    assert.strictEqual(http.get("fresh")!.turnovers.total, 0)
    assert.isAbove(http.get("pi-context")!.tokens.cacheRead, 0)
    // Every probe of a turnover answered over HTTP too.
    assert.isAbove((http.get("pi-context")!.probes ?? []).length, 0)
    assert.isAbove(server.prompts.length, 50)
  }, 240_000)
})
