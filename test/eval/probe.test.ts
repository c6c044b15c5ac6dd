import { assert, describe, it } from "@effect/vitest"
import type { Message, TranscriptContext } from "@earendil-works/pi-ai"
import { answerLine, gradeDone, gradeFact, gradeNext, probeRun, solutionChanges } from "../../eval/harness/probe.ts"
import { checkpointNote, scriptedAgent } from "../../eval/scripted/agent.ts"
import { defaultStandIn } from "../../eval/scripted/standIn.ts"
import { chainedRequests } from "../../eval/tasks/chained-requests/task.ts"
import { midQuestion } from "../../eval/tasks/mid-question/task.ts"
import { renameSymbol } from "../../eval/tasks/rename-symbol/task.ts"
import type { TaskFact } from "../../eval/tasks/taskTypes.ts"

const request = (...texts: ReadonlyArray<string>): TranscriptContext =>
  ({ messages: texts.map((text): Message => ({ role: "user", content: text, timestamp: 0 })) }) as TranscriptContext
const text = (reply: ReturnType<ReturnType<typeof scriptedAgent>>) => reply.content.map((part) => (part.type === "text" ? part.text : "")).join("")
const fact = (key: string, pattern: RegExp, wrong: ReadonlyArray<RegExp> = []): TaskFact => ({ name: key, question: `What is ${key}?`, pattern, wrong, source: "said once", key })

describe("continuity probes", () => {
  it("ask only the facts the run had been given before each point, each on its own answer line", async () => {
    const facts = [fact("first", /OPS-1111/), fact("second", /OPS-2222/)]
    const requests = [request("Change 1 (ticket OPS-1111)"), request("continue"), request("Change 2 (ticket OPS-2222)"), request("continue")]
    const asked: Array<string> = []
    // A model that remembers the first ticket only, whatever it is asked.
    const probes = await probeRun(requests, [{ point: 15, request: 1, changed: [] }, { point: 30, request: 3, changed: [] }], facts, undefined, (context) => {
      const probe = String(context.messages.at(-1)!.content)
      asked.push(probe)
      return "F1. OPS-1111\nF2. I do not know\nDONE. none"
    })
    assert.deepStrictEqual(probes.map((probe) => [probe.point, probe.facts, probe.recall]), [[15, 1, 1], [30, 2, 0.5]])
    assert.notInclude(asked[0]!, "F2")
    assert.include(asked[1]!, "F2 [second]. What is second?")
  })

  it("count a wrong value against the answer, even beside the right one, and grade a line only on itself", () => {
    const ticket = chainedRequests.facts(1)[0]!
    const [first, second] = chainedRequests.messages(1).map((message) => /OPS-\d+/.exec(message.text)?.[0]).filter((found) => found !== undefined)
    assert.strictEqual(gradeFact(`${first}`, ticket), "right")
    assert.strictEqual(gradeFact(`${first} or ${second}`, ticket), "wrong")
    assert.strictEqual(gradeFact("I do not know", ticket), "missing")
    // The tenant header the user's change replaced is a wrong answer.
    const header = chainedRequests.facts(1).find((candidate) => candidate.name === "the new tenant header")!
    assert.strictEqual(gradeFact("X-Tenant", header), "wrong")
    const answer = `F1. I do not know\nF2. ${first}`
    assert.strictEqual(gradeFact(answerLine(answer, "F1"), ticket), "missing")
  })

  it("give nothing for an answer that holds only a file list: on mid-question every other module named is a wrong one", () => {
    const [holder] = midQuestion.facts(1)
    const listing = "src/orderLoad.js, src/ticketScan.js, src/shipmentSort.js"
    assert.strictEqual(gradeFact(listing, holder!), "wrong")
    const right = String(holder!.pattern.source.match(/\w+\\\.js/)?.[0]).replace("\\.", ".")
    assert.strictEqual(gradeFact(`src/${right}`, holder!), "right")
    assert.strictEqual(gradeFact(`src/${right}, ${listing}`, holder!), "wrong")
  })

  it("fail on a lossy stand-in: a checkpoint that lost a fact leaves the probe after the reset without it", async () => {
    const facts = renameSymbol.facts(1)
    const opening = renameSymbol.messages(1)[0]!.text
    const knowledge = { facts: new Map([["rename.from", "loadCustomer"], ["rename.to", "readClient"]]), done: new Set<string>(), results: [], tools: [] }
    const afterReset = (note: string) => request(`## Context window\nCurrent window: w2\nYour working memory was reset.\n${note.split("\n").map((line) => `> ${line}`).join("\n")}`)
    const agent = scriptedAgent(renameSymbol.solver)
    const probeWith = (note: string) => probeRun([request(opening), afterReset(note)], [{ point: 15, request: 1, changed: [] }], facts, undefined, (context) => text(agent(context)))
    const [lossless] = await probeWith(checkpointNote(knowledge, 0))
    assert.strictEqual(lossless!.recall, 1)
    const [lossy] = await probeWith(checkpointNote(knowledge, 1))
    assert.strictEqual(lossy!.recall, 0.5)
    assert.strictEqual(lossy!.wrong, 0)
  })

  it("grade the steps done and the next one against the generator's truth", () => {
    const plan = solutionChanges(renameSymbol, 1)
    assert.include(plan, "src/users.js")
    assert.include(plan, "docs/api.md")
    assert.notInclude(plan, "package.json")
    assert.strictEqual(gradeDone("src/a.js, src/b.js", ["src/a.js", "src/b.js"]), 1)
    // A file named that was not changed takes one named that was off.
    assert.strictEqual(gradeDone("src/a.js, src/c.js", ["src/a.js", "src/b.js"]), 0)
    assert.strictEqual(gradeDone("src/a.js", ["src/a.js", "src/b.js"]), 0.5)
    assert.isTrue(gradeNext("src/users.js", plan))
    assert.isFalse(gradeNext("package.json", plan))
    assert.isFalse(gradeNext("src/users.js", plan.filter((path) => path !== "src/users.js")))
    assert.isTrue(gradeNext("none", []))
    assert.strictEqual(defaultStandIn.changes, "edit")
  })
})
