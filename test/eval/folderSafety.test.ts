import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { runCommand } from "../../eval/harness/command.ts"
import { runPool, runWorker } from "../../eval/harness/pool.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { jobsFor, writeReport } from "../../eval/run.ts"
import { folderTask, folderTasks, MaxTaskFileBytes } from "../../eval/tasks/folder.ts"
import { tempDir } from "../support/tempDirs.ts"


/** A folder of tasks with one task, `name`, holding `spec` as its task.json. */
const tasksWith = (name: string, spec: unknown) => {
  const dir = tempDir("pi-eval-tasks-")
  mkdirSync(join(dir, name, "repo"), { recursive: true })
  writeFileSync(join(dir, name, "task.json"), JSON.stringify(spec))
  return { dir, task: join(dir, name) }
}

const plain = { prompt: "Look around.", verify: "true" }

/** Whether `pid` still runs: a zombie (killed, not yet reaped by an init that may never reap it) does not. */
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : ""
  return !/^\d+ \(.*\) Z/.test(stat)
}

/** Whether `pid` is gone within a few seconds: a SIGKILL sent is not yet a process ended. */
const ends = (pid: number) => {
  for (let tries = 0; tries < 50 && isAlive(pid); tries++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
  return !isAlive(pid)
}

describe("a folder task's repo/ is copied without touching the user's files", () => {
  it("keeps a relative link inside repo/ as it is: writes through it land in the run's copy, never in the task folder", () => {
    const { task } = tasksWith("linked", plain)
    writeFileSync(join(task, "repo", "config.txt"), "template\n")
    mkdirSync(join(task, "repo", "sub"))
    symlinkSync("config.txt", join(task, "repo", "current"))
    symlinkSync("../config.txt", join(task, "repo", "sub", "up"))
    const run = tempDir("pi-eval-run-")
    folderTask(task, "linked").generate(run, 1)
    assert.strictEqual(readlinkSync(join(run, "current")), "config.txt")
    assert.strictEqual(readlinkSync(join(run, "sub", "up")), "../config.txt")
    writeFileSync(join(run, "current"), "changed by the run\n")
    writeFileSync(join(run, "sub", "up"), "changed by the run\n")
    assert.strictEqual(readFileSync(join(task, "repo", "config.txt"), "utf8"), "template\n")
    assert.strictEqual(readFileSync(join(run, "config.txt"), "utf8"), "changed by the run\n")
  })

  it("refuses, before any run and naming it, a link that leads out of repo/ (relative or absolute)", () => {
    const { dir, task } = tasksWith("leaky", plain)
    const secret = join(tempDir("pi-eval-secret-"), "secret.txt")
    writeFileSync(secret, "the user's\n")
    mkdirSync(join(task, "repo", "lib"))
    symlinkSync("../../task.json", join(task, "repo", "lib", "escape"))
    symlinkSync(secret, join(task, "repo", "absolute"))
    assert.throws(
      () => jobsFor(parseArgs(["--model", "local/m1", "--tasks-dir", dir, "--out", tempDir("pi-eval-out-")]), process.cwd()),
      /leaky\/repo holds entries a run's copy could not keep inside itself: .*absolute -> \/.*secret\.txt; lib\/escape -> \.\.\/\.\.\/task\.json\. Make each link relative and inside repo\/\. No run was started\./
    )
    assert.strictEqual(readFileSync(secret, "utf8"), "the user's\n")
  })
})

describe("a folder's task.json", () => {
  it("must be a regular file under the size limit: a FIFO or a link to /dev/zero is refused, never read", () => {
    const { dir, task } = tasksWith("piped", plain)
    spawnSync("rm", [join(task, "task.json")])
    assert.strictEqual(spawnSync("mkfifo", [join(task, "task.json")]).status, 0)
    assert.throws(() => folderTasks(dir), /piped\/task\.json is not a regular file \(a FIFO, a device or a folder\)/)
    spawnSync("rm", [join(task, "task.json")])
    symlinkSync("/dev/zero", join(task, "task.json"))
    assert.throws(() => folderTasks(dir), /piped\/task\.json is not a regular file/)
    spawnSync("rm", [join(task, "task.json")])
    writeFileSync(join(task, "task.json"), " ".repeat(MaxTaskFileBytes + 1))
    assert.throws(() => folderTasks(dir), /piped\/task\.json is 262,145 bytes, over the limit of 262,144 for a task\.json/)
  })

  it("is named with its file and its field when malformed, never with a raw TypeError", () => {
    const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
      [null, /bad\/task\.json holds null, not an object with "prompt" and "verify"$/],
      [[1], /bad\/task\.json holds a list, not an object/],
      [{ ...plain, midTask: null }, /bad\/task\.json needs "midTask" \(\{ text, afterWorkCalls/],
      [{ ...plain, facts: [null] }, /bad\/task\.json needs "facts" \(a list of \{ name, pattern \}\)/],
      [{ ...plain, followUps: [{ text: 3 }] }, /bad\/task\.json needs "followUps"/]
    ]
    for (const [spec, said] of cases) {
      const { dir } = tasksWith("bad", spec)
      assert.throws(() => folderTasks(dir), said)
      try {
        folderTasks(dir)
      } catch (error) {
        assert.notInstanceOf(error, TypeError)
      }
    }
  })

  it("runs its fact and answer patterns on RE2, linear in the text, and refuses what RE2 cannot run, naming the field", () => {
    const { task } = tasksWith("patterns", { ...plain, followUps: ["Go on.", { text: "Which key?", answer: "key-\\d+" }], midTask: { text: "How far?", afterWorkCalls: 3, answer: "^(a|aa)+$" }, facts: [{ name: "runs", pattern: "^(a|aa)+$" }] })
    const loaded = folderTask(task, "patterns")
    const [fact] = loaded.facts(1)
    // A backtracking engine takes longer than the universe on this; RE2 answers at once.
    assert.isFalse(fact!.pattern.test(`${"a".repeat(100_000)}b`))
    assert.isTrue(fact!.pattern.test("aaaa"))
    const messages = loaded.messages(1)
    assert.deepStrictEqual(messages.map((message) => [message.id, message.mustAnswer === true]), [["prompt", false], ["follow-up-1", false], ["follow-up-2", true], ["mid-task", true]])
    assert.isTrue(messages[2]!.answer!.test("the key is key-42"))
    assert.isFalse(messages[2]!.answer!.test("no key"))
    const { dir } = tasksWith("refused", { ...plain, facts: [{ name: "twice", pattern: "(a)\\1" }] })
    assert.throws(() => folderTasks(dir), /refused\/task\.json: the pattern of fact "twice" is no regular expression RE2 runs .*no backreferences or lookaround/)
  })

  it("has its folder's name written printable in the progress lines and in report.md", async () => {
    const name = "evil\u001b[2J\nname|[x](y)"
    const { dir } = tasksWith(name, plain)
    const [loaded] = folderTasks(dir)
    assert.strictEqual(loaded!.name, "evil\\u{1B}[2J\\u{A}name|[x](y)")
    // The worker cannot find a task by this name (it is not in its list): a harness failure, whose progress line is what is read.
    const lines: Array<string> = []
    const progress = { isTTY: false, write: (text: string) => (lines.push(text), true) } as unknown as NodeJS.WriteStream
    const [spec] = jobsFor(parseArgs(["--tasks", "log-clue", "--seeds", "1", "--arms", "none", "--out", tempDir("pi-eval-out-")]), process.cwd())
    const [result] = await runPool([{ ...spec!, task: name }], { jobs: 1, maxUsd: undefined, progress })
    const said = lines.join("")
    assert.include(said, "evil\\u{1B}[2J\\u{A}name|[x](y) · none · seed 1: failure")
    assert.notMatch(said, /[\u0000-\u0009\u000b-\u001f]/)
    const out = tempDir("pi-eval-report-")
    await writeReport(out, [result as RunResult])
    const report = readFileSync(join(out, "report.md"), "utf8")
    assert.notMatch(report, /[\u0000-\u0009\u000b-\u001f]/)
    assert.include(report, "evil\\u{1B}\\[2J\\u{A}name\\|\\[x\\](y)")
  }, 60_000)
})

describe("a folder task's setup and verify commands", () => {
  it("run in a process group of their own, killed whole at their limit: a setup that ignores SIGTERM does not hang the eval, nor does a background child it leaves", () => {
    const { task } = tasksWith("stubborn", { ...plain, setup: "trap '' TERM; (trap '' TERM; sleep 60) >/dev/null 2>&1 & echo $! > child.pid; sleep 60" })
    const run = tempDir("pi-eval-run-")
    assert.throws(() => folderTask(task, "stubborn").generate(run, 1, Date.now() + 1_500), /the setup of task stubborn failed: \(killed at its limit of \d+ s\)/)
    const child = Number(readFileSync(join(run, "child.pid"), "utf8"))
    assert.isTrue(ends(child), "the setup's background child was killed with it")
    // A command that succeeds and leaves a child behind: the eval goes on, and the child is gone.
    const left = runCommand("(sleep 60) >/dev/null 2>&1 & echo $! > left.pid; echo started", { cwd: run, env: process.env, timeoutMs: 60_000 })
    assert.deepInclude(left, { ok: true, timedOut: false })
    assert.strictEqual(left.output.trim(), "started")
    assert.isTrue(ends(Number(readFileSync(join(run, "left.pid"), "utf8"))), "the child it left was killed")
  }, 60_000)

  it("keep the head and the tail of a failing verify's output", () => {
    const { task } = tasksWith("loud", { ...plain, verify: "echo FIRST-LINE; for i in $(seq 1 2000); do echo filler line $i; done; echo LAST-LINE; exit 1" })
    const run = tempDir("pi-eval-run-")
    const verdict = folderTask(task, "loud").verify(run, 1)
    assert.isFalse(verdict.pass)
    assert.match(verdict.failures[0]!, /failed: FIRST-LINE\n[\s\S]*characters left out[\s\S]*LAST-LINE$/)
    assert.isBelow(verdict.failures[0]!.length, 2_600)
    assert.isTrue(existsSync(run))
  })
})

describe("the pool", () => {
  it("holds every run to its deadline whatever its worker does: a worker still going past it is ended, and the run is a timeout", async () => {
    const [spec] = jobsFor(parseArgs(["--tasks", "log-clue", "--seeds", "1", "--arms", "compaction", "--out", tempDir("pi-eval-out-")]), process.cwd())
    // No grace past a deadline shorter than the run: the pool, not the worker's own watchdog, ends it.
    const result = await runWorker({ ...spec!, runTimeoutMs: 1_500 }, () => {}, -1_000)
    assert.deepStrictEqual(result.failure, { kind: "timeout", message: "the run passed its 1500 ms limit: the pool ended its worker" })
    assert.isFalse(result.success)
  }, 60_000)
})
