import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { deskPlan, deskScript } from "../../eval/tasks/desk.ts"
import { runNode } from "../../eval/tasks/common.ts"
import { deskFamilies } from "../../eval/tasks/index.ts"
import type { Task } from "../../eval/tasks/taskTypes.ts"
import { vaultSlots } from "../../eval/tasks/vault-slots/task.ts"
import type { DeskFamily } from "../../eval/tasks/desk.ts"
import { tempDir } from "../support/tempDirs.ts"

/**
 * Each desk family's verifier judges the desk's own log and the repository: the reference run passes, and a
 * run that skips, reorders or guesses a step fails, whatever it says; what a step printed is nowhere on disk after.
 */

// The family behind each task, rebuilt from its messages: the test drives the desk as a run would.
const familyOf = (task: Task) => {
  const start = task.messages(1)[0]!.text
  const desk = /Work through the (\S+) desk/.exec(start)![1]!
  const file = /one change to make in (\S+), a receipt/.exec(start)![1]!
  return { desk, file, script: `scripts/${desk}.mjs` }
}

const fresh = (task: Task, seed: number) => {
  const dir = tempDir(`pi-context-desk-${task.name}-`)
  task.generate(dir, seed)
  return dir
}

const allFiles = (root: string, dir = root): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? allFiles(root, join(dir, name)) : [relative(root, join(dir, name))]))

// The plan needs the family's own record; every desk task is built from one, and the seed's receipts show in its facts.
const receiptsOf = (task: Task, seed: number) => task.facts(seed).filter((fact) => fact.name.startsWith("receipt")).map((fact) => fact.pattern.source.replace(/\\/g, ""))

describe("the desk families", () => {
  it("are twelve, two of them across two sessions, each with its own desk", () => {
    assert.strictEqual(deskFamilies.length, 12)
    assert.deepStrictEqual(deskFamilies.filter((task) => task.sessions === 2).map((task) => task.name), ["handover-project", "handover-user"])
    assert.strictEqual(new Set(deskFamilies.map((task) => familyOf(task).desk)).size, 12)
  })

  for (const task of deskFamilies) {
    it(`${task.name}: the reference run passes; a change made without opening its step, a guessed close or a forged log fails`, () => {
      const seed = 2
      const { script, file } = familyOf(task)
      const solved = fresh(task, seed)
      task.solve(solved, seed)
      assert.isTrue(task.verify(solved, seed).pass, task.verify(solved, seed).failures.join("; "))
      // Once printed, a step's facts are gone from disk: no file of the repository holds a receipt.
      for (const receipt of receiptsOf(task, seed)) {
        for (const path of allFiles(solved)) assert.notInclude(readFileSync(join(solved, path), "utf8"), receipt, `${path} holds ${receipt}`)
      }

      // The short cut: step 1 opened, then every change copied into the file from elsewhere, and a close attempted.
      const skipped = fresh(task, seed)
      const reference = fresh(task, seed)
      task.solve(reference, seed)
      const start = /open (\S+)`/.exec(task.messages(seed)[0]!.text)![1]!
      assert.isTrue(runNode(skipped, [script, "open", start]).ok)
      writeFileSync(join(skipped, file), readFileSync(join(reference, file), "utf8"))
      const close = runNode(skipped, [script, "close", "x", "y"])
      assert.isFalse(close.ok)
      assert.include(close.output, "still sealed")
      const verdict = task.verify(skipped, seed)
      assert.isFalse(verdict.pass)
      assert.match(verdict.failures.join("; "), /missing: open 2/)

      // A log written by hand, not by the desk: the close it claims never happened.
      writeFileSync(join(skipped, ".desk/log"), readFileSync(join(reference, ".desk/log"), "utf8"))
      const forged = task.verify(skipped, seed)
      assert.isFalse(forged.pass)
      assert.deepStrictEqual(forged.failures.filter((failure) => failure.includes("log")), [])
      assert.include(forged.failures.join("; "), "never closed")
    })
  }

  it("opens a step only with the previous step's code and only once the previous change is in place, and logs each refusal", () => {
    const dir = fresh(vaultSlots, 3)
    const script = deskScript({ desk: "vault" } as DeskFamily)
    const start = /open (\S+)`/.exec(vaultSlots.messages(3)[0]!.text)![1]!
    assert.isFalse(runNode(dir, [script, "open", "wrong-000"]).ok)
    const first = runNode(dir, [script, "open", start])
    assert.isTrue(first.ok)
    const next = /^NEXT CODE: (\S+)$/m.exec(first.output)![1]!
    // The decoy code printed beside it opens nothing.
    const decoy = /superseded next code \(no longer valid\): (\S+)/.exec(first.output)![1]!
    assert.isFalse(runNode(dir, [script, "open", decoy]).ok)
    // The right code, but step 1's change not made: refused.
    const refused = runNode(dir, [script, "open", next])
    assert.isFalse(refused.ok)
    assert.include(refused.output, "not in place")
    // Printed once: the same code again after the change opens step 2, and step 1's text is gone for good.
    const [, before, after] = /^CHANGE 1: in \S+, replace the line "(.*)" with "(.*)"\.$/m.exec(first.output)!
    writeFileSync(join(dir, "config/vault.ini"), readFileSync(join(dir, "config/vault.ini"), "utf8").replace(before!, after!))
    assert.isTrue(runNode(dir, [script, "open", next]).ok)
    assert.isFalse(runNode(dir, [script, "open", start]).ok)
    assert.deepStrictEqual(readFileSync(join(dir, ".desk/log"), "utf8").trim().split("\n"), [
      "refused open 1: wrong code", "open 1", "refused open 2: wrong code", "refused open 2: step 1 not done", "open 2", "refused open 3: wrong code"
    ])
  })

  it("shows each step's facts among look-alikes: the plan's receipt, never the voided one", () => {
    const plan = deskPlan({ ...familyRecord(), steps: 2, noiseLines: 20 }, 1)
    const [step] = plan.steps
    assert.include(step!.text, `RECEIPT 1: ${step!.receipt}`)
    assert.match(step!.text, /voided receipt \(do not use\): VAU-\d+/)
    assert.notInclude(step!.text.match(/voided receipt \(do not use\): (\S+)/)![1]!, step!.receipt)
  })
})

const familyRecord = (): DeskFamily => ({
  name: "test-desk",
  kind: "test",
  desk: "vault",
  file: "a.txt",
  salt: 1,
  steps: 2,
  noiseLines: 20,
  lines: () => ["a_01 = x", "a_02 = y", "a_03 = z"],
  change: (_, lines, index) => ({ before: lines[index]!, after: `${lines[index]!}!` }),
  noise: () => "noise"
})
