import { assert, describe, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { buildKey } from "../../eval/tasks/build-key/task.ts"
import { listFiles, read, runNode } from "../../eval/tasks/common.ts"
import { frozenRules } from "../../eval/tasks/frozen-rules/task.ts"
import { tasks } from "../../eval/tasks/index.ts"
import { tempDir } from "../support/tempDirs.ts"

const fresh = () => tempDir("pi-context-eval-task-")

describe("eval tasks", () => {
  it("cover the kinds the eval needs, with seven or more tasks", () => {
    assert.isAtLeast(tasks.length, 7)
    const kinds = new Set(tasks.map((task) => task.kind))
    for (const kind of [
      "a rename across many files",
      "a feature built in steps from a specification given only at the start",
      "a bug whose clue appears early in a long log",
      "constraints stated once at the start that must still hold at the end",
      "a failing command whose cause must be remembered later",
      "a user request that arrives mid-task and must be answered",
      "chained requests whose tickets and findings come only in conversation"
    ]) assert.isTrue(kinds.has(kind), kind)
  })

  for (const task of tasks) {
    it(`${task.name}: the verifier fails on the untouched repository and passes on the reference solution`, () => {
      for (const seed of [1, 2]) {
        const untouched = fresh()
        const solved = fresh()
        task.generate(untouched, seed)
        task.generate(solved, seed)
        task.solve(solved, seed)
        const before = task.verify(untouched, seed)
        const after = task.verify(solved, seed)
        rmSync(untouched, { recursive: true, force: true })
        rmSync(solved, { recursive: true, force: true })
        assert.isFalse(before.pass, `seed ${seed}: the untouched repository passed`)
        assert.isAbove(before.failures.length, 0)
        assert.isTrue(after.pass, `seed ${seed}: ${after.failures.join("; ")}`)
      }
    })

    it(`${task.name}: one opening request, one steered in at a fixed point of the work (the same in every arm), and no text naming an arm's tools`, () => {
      const messages = task.messages(1)
      // One opening request for each of the task's sessions.
      for (let session = 1; session <= (task.sessions ?? 1); session++) {
        assert.strictEqual(messages.filter((message) => message.when === "start" && (message.session ?? 1) === session).length, 1, `session ${session}`)
      }
      assert.strictEqual(messages[0]?.when, "start")
      assert.isAtLeast(messages.filter((message) => message.when === "progress" && (message.afterWorkCalls ?? 0) > 0).length, 1)
      for (const message of messages) assert.notMatch(message.text, /pi-context|wipe_memory|notes_|history_|compact|context window|checkpoint/i)
    })
  }
})

describe("what a task must remember is not in the repository to be found again", () => {
  it("build-key: the first build prints the key once; after it, no file of the repository holds the key", () => {
    const dir = fresh()
    buildKey.generate(dir, 1)
    const key = /K-[0-9a-f]{6}/.exec(buildKey.messages(1).find((message) => message.id === "key")!.answer!.source)![0]
    const first = runNode(dir, ["scripts/build.mjs"])
    assert.isFalse(first.ok)
    assert.include(first.output, `use BUILD_KEY=${key}`)
    assert.notInclude(runNode(dir, ["scripts/build.mjs"]).output, key)
    for (const path of listFiles(dir)) assert.notInclude(read(dir, path) ?? "", key, path)
    rmSync(dir, { recursive: true, force: true })
  })

  it("frozen-rules: src/lib/check.js offers every helper, so only the user's rule says which one to use", () => {
    const dir = fresh()
    frozenRules.generate(dir, 1)
    const check = read(dir, "src/lib/check.js")!
    for (const helper of ["requireField", "ensureField", "mustHave"]) assert.include(check, `export function ${helper}(`)
    rmSync(dir, { recursive: true, force: true })
  })
})
