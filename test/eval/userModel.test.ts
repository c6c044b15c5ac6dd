import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { runPool } from "../../eval/harness/pool.ts"
import { checkModel } from "../../eval/harness/preflight.ts"
import { probeMark } from "../../eval/harness/probe.ts"
import { jobsFor } from "../../eval/run.ts"
import { enforceWindow, type StreamSimple } from "../../eval/harness/window.ts"
import { chatServer } from "../support/chatServer.ts"
import { localModelsDir } from "../support/localModels.ts"
import { tempDir } from "../support/tempDirs.ts"

const userSetUp = (port: number) => localModelsDir(port, { id: "m1", contextWindow: 200_000, cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } })

describe("npm run eval --model provider/id", () => {
  it("starts no run once the runs so far cost --max-usd", async () => {
    const { server, bodies } = chatServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const userAgentDir = userSetUp((server.address() as AddressInfo).port)
    const out = tempDir("pi-context-eval-out-")
    const specs = jobsFor(parseArgs(["--model", "local/m1", "--tasks", "rename-symbol", "--seeds", "3", "--arms", "compaction", "--out", out]), process.cwd())
    const results = await runPool(specs.map((spec) => ({ ...spec, userAgentDir })), { jobs: 1, maxUsd: 0.000_001 })
    server.close()
    assert.strictEqual(specs.length, 3)
    assert.strictEqual(results.length, 1)
    assert.isAbove(results[0]!.costUsd, 0.000_001)
    assert.strictEqual(bodies.length, 2)
  })

  it("runs on a model from the user's Pi set-up (its models.json and key), records the provider's usage and prices it, and calls a reply that gives up an early stop", async () => {
    const { server, bodies } = chatServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    const userAgentDir = userSetUp(port)
    const out = tempDir("pi-context-eval-out-")
    const [spec] = jobsFor(parseArgs(["--model", "local/m1", "--tasks", "rename-symbol", "--seeds", "1", "--arms", "compaction", "--out", out]), process.cwd())
    const [result] = await runPool([{ ...spec!, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } }], { jobs: 1, maxUsd: undefined })
    server.close()
    assert.isDefined(result)
    assert.isUndefined(result!.failure, JSON.stringify(result!.failure))
    assert.strictEqual(result!.versions.model, "local/m1")
    assert.isFalse(result!.scripted)
    assert.strictEqual(result!.window, 32_000)
    // The opening and the follow-up sent when the agent was idle: two calls, each as the provider reported it.
    assert.strictEqual(bodies.length, 2)
    assert.strictEqual(result!.modelCalls, 2)
    assert.strictEqual(result!.tokens.input + result!.tokens.cacheRead, 2_000)
    assert.strictEqual(result!.tokens.output, 20)
    assert.closeTo(result!.costUsd, (result!.tokens.input * 2 + result!.tokens.cacheRead * 0.5 + 20 * 8) / 1_000_000, 1e-12)
    assert.isFalse(result!.success)
    assert.isTrue(result!.earlyStop)
  })

  it("holds a real model to --window whatever the provider accepts: a request the provider counts over it fails as an overflow, and a `none` run ends there", async () => {
    // The provider takes 9,000 prompt tokens without a word; the eval's window is 8,000.
    const { server, bodies } = chatServer(9_000)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const userAgentDir = userSetUp((server.address() as AddressInfo).port)
    const out = tempDir("pi-context-eval-out-")
    const [spec] = jobsFor(parseArgs(["--model", "local/m1", "--tasks", "rename-symbol", "--seeds", "1", "--arms", "none", "--window", "8000", "--out", out]), process.cwd())
    const [result] = await runPool([{ ...spec!, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } }], { jobs: 1, maxUsd: undefined })
    server.close()
    assert.strictEqual(result!.failure?.kind, "context-overflow", JSON.stringify(result!.failure))
    assert.match(result!.failure!.message, /^prompt is too long: 9000 tokens > 8000 maximum \(the eval's --window\)$/)
    assert.strictEqual(bodies.length, 1)
    // The request was answered and billed: its tokens count.
    assert.strictEqual(result!.tokens.input + result!.tokens.cacheRead, 9_000)
    assert.isFalse(result!.success)
  })

  it("runs the user's own tasks from a folder end to end: its setup, its prompt and follow-ups, its verify command's exit code", async () => {
    const { server, bodies } = chatServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const userAgentDir = userSetUp((server.address() as AddressInfo).port)
    const tasksDir = tempDir("pi-context-eval-tasks-")
    const task = (name: string, spec: Record<string, unknown>) => {
      mkdirSync(join(tasksDir, name, "repo"), { recursive: true })
      writeFileSync(join(tasksDir, name, "repo", "README.md"), `# ${name}\n`)
      writeFileSync(join(tasksDir, name, "task.json"), JSON.stringify(spec))
    }
    task("kept-seed", { prompt: "Look around.", followUps: ["Anything else?"], midTask: { text: "How far are you?", afterWorkCalls: 5 }, setup: "echo \"seed $EVAL_SEED\" > seed.txt", verify: "grep -q 'seed 1' seed.txt && test -f README.md" })
    task("never-done", { prompt: "Write done.txt.", verify: "test -f done.txt || { echo 'done.txt is missing'; exit 1; }" })
    const out = tempDir("pi-context-eval-out-")
    const specs = jobsFor(parseArgs(["--model", "local/m1", "--tasks-dir", tasksDir, "--seeds", "1", "--arms", "compaction", "--out", out]), process.cwd())
    assert.deepStrictEqual(specs.map((spec) => spec.task), ["kept-seed", "never-done"])
    const results = await runPool(specs.map((spec) => ({ ...spec, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } })), { jobs: 1, maxUsd: undefined })
    server.close()
    const byTask = new Map(results.map((result) => [result.task, result]))
    assert.isTrue(byTask.get("kept-seed")!.success, JSON.stringify(byTask.get("kept-seed")!.verifierFailures))
    assert.isFalse(byTask.get("never-done")!.success)
    assert.match(byTask.get("never-done")!.verifierFailures.join(), /done\.txt is missing/)
    // The prompt, its follow-up and its mid-task question (sent when idle: the model made no call) for the first task, the prompt alone for the second.
    assert.strictEqual(bodies.length, 4)
    // The scripted agent cannot work a task it has never seen; a broken task.json is named.
    assert.throws(() => jobsFor(parseArgs(["--tasks-dir", tasksDir]), process.cwd()), /--tasks-dir needs a real model/)
    writeFileSync(join(tasksDir, "never-done", "task.json"), JSON.stringify({ prompt: "x" }))
    assert.throws(() => jobsFor(parseArgs(["--model", "local/m1", "--tasks-dir", tasksDir]), process.cwd()), /never-done\/task\.json needs "verify" \(a shell command\)/)
  })

  it("grades a follow-up's or mid-task question's expected answer: a reply that does not match it leaves the run unsolved", async () => {
    const { server } = chatServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const userAgentDir = userSetUp((server.address() as AddressInfo).port)
    const tasksDir = tempDir("pi-context-eval-tasks-")
    const task = (name: string, spec: Record<string, unknown>) => {
      mkdirSync(join(tasksDir, name), { recursive: true })
      writeFileSync(join(tasksDir, name, "task.json"), JSON.stringify(spec))
    }
    // The server always says "All done.".
    task("answered", { prompt: "Look around.", followUps: [{ text: "Are you done?", answer: "All done" }], verify: "true" })
    task("wrong-answer", { prompt: "Look around.", midTask: { text: "Which key?", afterWorkCalls: 5, answer: "key-\\d+" }, verify: "true" })
    const out = tempDir("pi-context-eval-out-")
    const specs = jobsFor(parseArgs(["--model", "local/m1", "--tasks-dir", tasksDir, "--seeds", "1", "--arms", "compaction", "--out", out]), process.cwd())
    const results = await runPool(specs.map((spec) => ({ ...spec, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } })), { jobs: 1, maxUsd: undefined })
    server.close()
    const byTask = new Map(results.map((result) => [result.task, result]))
    assert.isTrue(byTask.get("answered")!.success, JSON.stringify(byTask.get("answered")!.requests))
    assert.isFalse(byTask.get("wrong-answer")!.success)
    assert.deepInclude(byTask.get("wrong-answer")!.requests.find((request) => request.id === "mid-task")!, { sent: true, answered: false })
  })

  it("checks before any run that the endpoint answers one short request, and says so plainly when it does not", async () => {
    const { server, bodies } = chatServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    await checkModel(parseArgs(["--model", "local/m1"]), userSetUp(port), true)
    assert.strictEqual(bodies.length, 1)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const refusal = await checkModel(parseArgs(["--model", "local/m1", "--call-timeout", "5"]), userSetUp(port), true).then(() => undefined, (error: Error) => error.message)
    assert.match(refusal ?? "", new RegExp(`^model local/m1 did not answer a one-line request at http://127\\.0\\.0\\.1:${port}/v1 \\(.+\\): start its server, check its address in models\\.json, or raise --call-timeout for a slow one\\. No run was started\\.$`))
  })

  it("probes a real model's run at its points of progress: the next request, resent with the probe, answered by the same model and graded line by line", async () => {
    const probeBodies: Array<string> = []
    let calls = 0
    // The model lists the folder 15 times (the first probe's point), checkpoints and wipes, then is done; a probe it answers
    // with the names its request's opening holds.
    const call = (index: number, id: string, name: string, args: unknown) => ({ index, id, type: "function", function: { name, arguments: JSON.stringify(args) } })
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = ""
      request.on("data", (chunk: Buffer) => void (body += chunk.toString()))
      request.on("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        const chunk = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`)
        // The provider says how much of each prompt it read from its cache, as OpenAI's usage does.
        const usage = { prompt_tokens: 1_000, completion_tokens: 10, total_tokens: 1_010, prompt_tokens_details: { cached_tokens: 400 } }
        const done = (finish: string) => chunk({ id: "c", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: {}, finish_reason: finish }], usage })
        const say = (content: string) => chunk({ id: "c", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: null }] })
        if (body.includes(probeMark)) {
          probeBodies.push(body)
          const names = /Rename the function `(\w+)` to `(\w+)`/.exec(body)
          say(`F1. ${names?.[1] ?? "I do not know"}\nF2. ${names?.[2] ?? "I do not know"}\nDONE. none\nNEXT. src/users.js`)
          done("stop")
        } else if (calls < 15) {
          calls++
          chunk({ id: "c", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call(0, `l${calls}`, "ls", { path: "." })] }, finish_reason: null }] })
          done("tool_calls")
        } else if (calls++ === 15) {
          chunk({
            id: "c",
            object: "chat.completion.chunk",
            model: "m1",
            choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call(0, "t1", "notes_write", { address: "checkpoint", content: "# Checkpoint\nnext: go on" }), call(1, "t2", "wipe_memory", {})] }, finish_reason: null }]
          })
          done("tool_calls")
        } else {
          say("All done.")
          done("stop")
        }
        response.end("data: [DONE]\n\n")
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const userAgentDir = userSetUp((server.address() as AddressInfo).port)
    const out = tempDir("pi-context-eval-out-")
    const [spec] = jobsFor(parseArgs(["--model", "local/m1", "--tasks", "rename-symbol", "--seeds", "1", "--arms", "pi-context", "--out", out]), process.cwd())
    const [result] = await runPool([{ ...spec!, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } }], { jobs: 1, maxUsd: undefined })
    server.close()
    assert.isUndefined(result!.failure, JSON.stringify(result!.failure))
    assert.strictEqual(result!.turnovers.resets, 1)
    // One probe, at the 15th call of Pi's own tools: the request that followed, with the probe after it, sent to the same endpoint.
    assert.lengthOf(probeBodies, 1)
    assert.include(probeBodies[0]!, "F2 [rename.to]. What is its new name?")
    assert.lengthOf(result!.probes, 1)
    assert.deepInclude(result!.probes[0]!, { point: 15, turnovers: 0, facts: 2, recall: 1, wrong: 0, done: 1, next: true })
    // How the reset went, with the provider's cache reads of each window (400 a call: 16 calls in w1, the continuation's
    // and the follow-up's in w2; the probe, outside the run, is not counted).
    assert.deepStrictEqual(result!.resets.map((window) => [window.w, window.checkpointWritten, window.cacheReadTokens]), [[1, true, 16 * 400], [2, false, 800]])
  })
})

describe("the eval's window on a real model", () => {
  it("never sends a request estimated over --window: it fails at once as an overflow, billed nothing", async () => {
    let sent = 0
    const send: StreamSimple = () => {
      sent++
      throw new Error("sent")
    }
    const model = { api: "openai-completions", provider: "local", id: "m1" } as Parameters<StreamSimple>[0]
    const context = { messages: [{ role: "user" as const, content: "x".repeat(40_000), timestamp: 0 }] }
    const reply = await enforceWindow(send, 8_000)(model, context as Parameters<StreamSimple>[1]).result()
    assert.strictEqual(sent, 0)
    assert.strictEqual(reply.stopReason, "error")
    assert.match(reply.errorMessage!, /^prompt is too long: 1000\d tokens > 8000 maximum \(the eval's --window\)$/)
    assert.strictEqual(reply.usage.input, 0)
  })
})
