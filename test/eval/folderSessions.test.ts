import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { folderTasks } from "../../eval/tasks/folder.ts"

const tasksWith = (spec: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), "pi-eval-sessions-"))
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
})
