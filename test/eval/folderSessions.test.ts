import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AddressInfo } from "node:net"
import { parseArgs } from "../../eval/harness/args.ts"
import { runPool } from "../../eval/harness/pool.ts"
import { jobsFor } from "../../eval/run.ts"
import { folderTasks } from "../../eval/tasks/folder.ts"
import { chatServer } from "../support/chatServer.ts"
import { localModelsDir } from "../support/localModels.ts"
import { tempDir } from "../support/tempDirs.ts"

const tasksWith = (spec: unknown) => {
  const dir = tempDir("pi-eval-sessions-")
  mkdirSync(join(dir, "two"))
  writeFileSync(join(dir, "two", "task.json"), JSON.stringify(spec))
  return dir
}

const plain = { prompt: "Start the migration.", verify: "true", followUps: ["Stop for today."] }

describe("a folder task of two sessions", () => {
  it("runs its nextSession as a second session: its own opening request and follow-ups, their answers graded", () => {
    const [task] = folderTasks(tasksWith({ ...plain, nextSession: { prompt: "Finish the migration.", followUps: [{ text: "Which batch was last?", answer: "batch-\\d+" }] } }))
    assert.strictEqual(task!.sessions, 2)
    const messages = task!.messages(1)
    assert.deepStrictEqual(messages.map((message) => [message.id, message.when, message.session ?? 1]), [
      ["prompt", "start", 1], ["follow-up-1", "idle", 1], ["next-prompt", "start", 2], ["next-follow-up-1", "idle", 2]
    ])
    const question = messages.find((message) => message.id === "next-follow-up-1")!
    assert.isTrue(question.mustAnswer)
    assert.match("It was batch-7.", question.answer!)
    // Without nextSession a task stays one session.
    assert.isUndefined(folderTasks(tasksWith(plain))[0]!.sessions)
  })

  it("names a malformed nextSession with its file and field", () => {
    for (const nextSession of [null, { prompt: "" }, { prompt: "Go on.", followUps: [{ text: 3 }] }]) {
      assert.throws(() => folderTasks(tasksWith({ ...plain, nextSession })), /two\/task\.json needs "nextSession" \(\{ prompt, followUps \(optional\) \}\)/)
    }
    assert.throws(() => folderTasks(tasksWith({ ...plain, nextSession: { prompt: "Go on.", followUps: [{ text: "Which?", answer: "(a" }] } })), /nextSession\.followUps\[0\]/)
  })

  it("runs end to end on a model: the second session's first request holds its own prompt and nothing of the first session's chat", async () => {
    const { server, bodies } = chatServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const userAgentDir = localModelsDir((server.address() as AddressInfo).port, { id: "m1", contextWindow: 200_000 })
    const tasksDir = tasksWith({ prompt: "Session one: the batch is batch-41.", verify: "true", followUps: ["Stop for today."], nextSession: { prompt: "Session two: carry on." } })
    const out = tempDir("pi-eval-sessions-out-")
    const specs = jobsFor(parseArgs(["--model", "local/m1", "--tasks-dir", tasksDir, "--seeds", "1", "--arms", "compaction", "--out", out]), process.cwd())
    const [result] = await runPool(specs.map((spec) => ({ ...spec, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } })), { jobs: 1, maxUsd: undefined })
    server.close()
    assert.isTrue(result!.success, JSON.stringify([result!.failure, result!.verifierFailures]))
    // Three requests: the first session's prompt and follow-up, then the second session's prompt alone.
    assert.strictEqual(bodies.length, 3)
    const [, second, third] = bodies.map((body) => JSON.stringify(body.messages))
    assert.include(second, "batch-41")
    assert.include(third, "Session two: carry on.")
    assert.notInclude(third, "batch-41")
    assert.notInclude(third, "Stop for today.")
    assert.deepStrictEqual(result!.requests.map((request) => [request.id, request.sent]), [["prompt", true], ["follow-up-1", true], ["next-prompt", true]])
  }, 60_000)
})
