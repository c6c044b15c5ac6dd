import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { checkWritable, MarkerFile, planOut, runWrites, startOut } from "../../eval/harness/outDir.ts"
import { checkModel } from "../../eval/harness/preflight.ts"
import { jobsFor } from "../../eval/run.ts"
import { localModelsDir } from "../support/localModels.ts"
import { tempDir } from "../support/tempDirs.ts"

const repoRoot = resolve(import.meta.dirname, "..", "..")

/** `npm run eval -- argv` as a user runs it (in its own process), with a temp agent dir. */
const evalCli = (argv: ReadonlyArray<string>, agentDir = tempDir("pi-eval-agent-")) =>
  spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", join(repoRoot, "eval", "run.ts"), ...argv], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, INIT_CWD: repoRoot },
    timeout: 120_000
  })

/** A folder as a user's Pi agent folder looks: their sessions, which the eval must never delete. */
const userAgentFolder = () => {
  const dir = tempDir("pi-eval-user-")
  mkdirSync(join(dir, "sessions", "--home--"), { recursive: true })
  writeFileSync(join(dir, "sessions", "--home--", "2026-12-01.jsonl"), "{\"type\":\"session\"}\n")
  writeFileSync(join(dir, "settings.json"), "{}\n")
  return dir
}

describe("npm run eval's flags are checked before anything is touched", () => {
  it("names an unknown flag as unknown, and takes only whole, bounded numbers of seeds, jobs, calls and window", () => {
    assert.throws(() => parseArgs(["--bogusflag"]), /^unknown flag --bogusflag/)
    for (const seeds of ["0.5", "1e9", "1e308", "0", "-2", "3x"]) assert.throws(() => parseArgs(["--seeds", seeds]), /--seeds takes a whole number from 1 to 1,000/)
    assert.throws(() => parseArgs(["--jobs", "1000"]), /--jobs takes a whole number from 1 to 64/)
    assert.throws(() => parseArgs(["--window", "4000"]), /--window takes a whole number from 8,000 .*cannot hold a task's first request/)
    assert.throws(() => parseArgs(["--max-calls", "2.5"]), /--max-calls takes a whole number/)
    assert.throws(() => parseArgs(["--out", "--seeds", "2"]), /--out needs a value/)
    assert.strictEqual(parseArgs(["--seeds", "34"]).seeds, 34)
  })

  it("refuses an --out that holds files it did not write, naming the fix, and deletes nothing there", () => {
    const user = userAgentFolder()
    assert.throws(() => planOut(parseArgs(["--out", user]), repoRoot, repoRoot), /holds files the eval did not write \(it has no eval-run\.json\).*Nothing was changed/)
    assert.throws(() => startOut(user, ["--out", user]), /holds files the eval did not write/)
    assert.isTrue(existsSync(join(user, "sessions", "--home--", "2026-12-01.jsonl")))
    const file = join(tempDir("pi-eval-file-"), "results")
    writeFileSync(file, "x")
    assert.throws(() => planOut(parseArgs(["--out", file]), repoRoot, repoRoot), /is a file; name a folder/)
  })

  it("writes over its own earlier run only: the results and run folders its marker records go, anything else stays", () => {
    const dir = tempDir("pi-eval-own-")
    startOut(dir, ["--seeds", "1"], [join(dir, "sessions", "run-1")])
    const marker = JSON.parse(readFileSync(join(dir, MarkerFile), "utf8"))
    assert.deepStrictEqual(marker.argv, ["--seeds", "1"])
    assert.deepStrictEqual(marker.wrote, ["results.jsonl", "report.md", "chart.svg", join("sessions", "run-1")])
    writeFileSync(join(dir, "results.jsonl"), "{\"task\":\"log-clue\",\"arm\":\"none\",\"seed\":1}\n")
    writeFileSync(join(dir, "report.md"), "# pi-context eval report\n")
    mkdirSync(join(dir, "sessions", "run-1", "session"), { recursive: true })
    mkdirSync(join(dir, "sessions", "not-a-run"), { recursive: true })
    writeFileSync(join(dir, "notes-of-mine.md"), "kept\n")
    startOut(dir, ["--seeds", "2"], [join(dir, "sessions", "run-2")])
    assert.deepStrictEqual(readdirSync(dir).sort(), [MarkerFile, "notes-of-mine.md", "sessions"])
    assert.deepStrictEqual(readdirSync(join(dir, "sessions")), ["not-a-run"])
  })

  it("is not fooled by a forged eval-run.json: the user's sessions/ and report.md stay, and the run is refused before anything is touched", () => {
    const user = userAgentFolder()
    writeFileSync(join(user, "report.md"), "my own report\n")
    const forged = (wrote?: ReadonlyArray<string>) =>
      writeFileSync(join(user, MarkerFile), JSON.stringify({ piContextEval: 1, startedAt: "2026-12-01T00:00:00.000Z", argv: [], ...(wrote === undefined ? {} : { wrote }) }))
    forged()
    assert.throws(() => startOut(user, [], [join(user, "sessions", "log-clue-compaction-1")]), /holds report\.md, which its eval-run\.json does not record the eval writing.*Nothing was changed/)
    // A marker that claims them: a file is the eval's only if recorded and read as the eval's, a run folder only if it holds what a run folder holds.
    forged(["sessions/--home--", "sessions", "../outside", "report.md"])
    assert.throws(() => startOut(user, [], [join(user, "sessions", "--home--")]), /holds report\.md, sessions\/--home--, which its eval-run\.json does not record/)
    assert.strictEqual(readFileSync(join(user, "sessions", "--home--", "2026-12-01.jsonl"), "utf8"), "{\"type\":\"session\"}\n")
    assert.strictEqual(readFileSync(join(user, "report.md"), "utf8"), "my own report\n")
    // As a user runs it: refused, and nothing of theirs is gone.
    forged()
    const run = evalCli(["--tasks", "log-clue", "--arms", "compaction", "--seeds", "1", "--out", user])
    assert.strictEqual(run.status, 1, run.stderr)
    assert.match(run.stderr, /holds report\.md, which its eval-run\.json does not record/)
    assert.strictEqual(readFileSync(join(user, "report.md"), "utf8"), "my own report\n")
    assert.isTrue(existsSync(join(user, "sessions", "--home--", "2026-12-01.jsonl")))
    // Nor can --resume of that folder replace them.
    const resumed = evalCli(["--resume", user])
    assert.strictEqual(resumed.status, 1, resumed.stderr)
    assert.match(resumed.stderr, /^--resume .* holds report\.md, which its eval-run\.json does not record/)
    assert.strictEqual(readFileSync(join(user, "report.md"), "utf8"), "my own report\n")
  }, 60_000)

  it("--help prints the flags on stdout and exits 0", () => {
    const run = evalCli(["--help"])
    assert.strictEqual(run.status, 0, run.stderr)
    assert.match(run.stdout, /^npm run eval -- \[flags\]\n[\s\S]*--call-timeout S[\s\S]*--summary-timeout S/)
  })

  it("sends a run that is not the default one to a folder of its own, so the committed run is never written over", () => {
    const now = new Date("2026-12-04T03:04:05.678Z")
    const partial = planOut(parseArgs(["--tasks", "log-clue"]), repoRoot, repoRoot, now)
    assert.strictEqual(relative(repoRoot, partial.dir), join("eval", "results", "runs", "scripted-20261204-030405Z"))
    assert.include(partial.note!, "not the default run, so not written over eval/results/scripted")
    assert.strictEqual(relative(repoRoot, planOut(parseArgs([]), repoRoot, repoRoot, now).dir), join("eval", "results", "scripted"))
    // The committed folders are marked as the eval's own: the default run may rewrite them, whichever marker they hold.
    const committed = join(repoRoot, "eval", "results", "scripted")
    assert.isTrue(existsSync(join(committed, MarkerFile)))
    checkWritable(committed, "--out", runWrites(committed, jobsFor(parseArgs([]), repoRoot, committed).map((spec) => spec.runDir)))
  })

  it("as a user runs it: a bad task, seed count, extension or model exits non-zero before any run, and leaves an earlier run as it was", () => {
    const earlier = tempDir("pi-eval-earlier-")
    startOut(earlier, [])
    writeFileSync(join(earlier, "results.jsonl"), "{\"task\":\"kept\",\"arm\":\"none\",\"seed\":1}\n")
    const cases: ReadonlyArray<[ReadonlyArray<string>, RegExp]> = [
      [["--tasks", "nosuch"], /no task named nosuch \(tasks: /],
      [["--seeds", "1e9"], /--seeds takes a whole number/],
      [["--arms", "ext:./no/such/extension"], /extension \.\/no\/such\/extension is neither a path nor an installed package/],
      [["--model", "nosuch/model"], /model nosuch\/model is not in your Pi set-up .*`pi --list-models` lists the models it can reach\. No run was started\./]
    ]
    for (const [argv, said] of cases) {
      const run = evalCli([...argv, "--out", earlier])
      assert.strictEqual(run.status, 1, run.stderr)
      assert.match(run.stderr, said)
      assert.notMatch(run.stderr, /\bE[A-Z]{3,}\b|at .*\.ts:\d+/)
      assert.strictEqual(readFileSync(join(earlier, "results.jsonl"), "utf8"), "{\"task\":\"kept\",\"arm\":\"none\",\"seed\":1}\n")
    }
    const report = evalCli(["--report", tempDir("pi-eval-empty-")])
    assert.strictEqual(report.status, 1)
    assert.match(report.stderr, /has no results\.jsonl: name the folder of an earlier eval run/)
  }, 120_000)

  it("refuses a model of the user's set-up that has no key, before any run, saying how to give it one", async () => {
    const refusal = await checkModel(parseArgs(["--model", "local/m1"]), localModelsDir(9, { id: "m1", contextWindow: 32_000 }, null))
      .then(() => undefined, (error: Error) => error.message)
    assert.strictEqual(
      refusal,
      "model local/m1 has no key or login in your Pi set-up: run `pi` and /login, set the provider's API key variable, or give the provider an apiKey in models.json. No run was started."
    )
    await checkModel(parseArgs(["--model", "local/m1"]), localModelsDir(9, { id: "m1", contextWindow: 32_000 }))
  })
})

describe("a partial run with the default --out", () => {
  it("goes to a folder of its own under eval/results/runs/, and leaves the committed run as it was", () => {
    const committed = join(repoRoot, "eval", "results", "scripted", "results.jsonl")
    const before = readFileSync(committed, "utf8")
    const run = evalCli(["--tasks", "log-clue", "--arms", "compaction", "--seeds", "1"])
    assert.strictEqual(run.status, 0, run.stderr)
    const [, folder] = /results go to (eval\/results\/runs\/\S+)/.exec(run.stderr) ?? []
    assert.isDefined(folder, run.stderr)
    try {
      assert.isTrue(existsSync(join(repoRoot, folder!, "results.jsonl")))
      assert.strictEqual(readFileSync(committed, "utf8"), before)
    } finally {
      rmSync(join(repoRoot, folder!), { recursive: true, force: true })
    }
  }, 120_000)
})

describe("npm run eval --resume", () => {
  it("continues a stopped run with its own flags: only the runs it has no result for, each run's final repository and notes kept beside its session", () => {
    const out = join(tempDir("pi-eval-resume-"), "run")
    const first = evalCli(["--tasks", "log-clue", "--arms", "compaction", "--seeds", "2", "--jobs", "2", "--out", out])
    assert.strictEqual(first.status, 0, first.stderr)
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n")
    assert.strictEqual(lines.length, 2)
    const kept = JSON.parse(lines[0]!) as { seed: number; sessionFile: string }
    const runDir = join(out, dirname(dirname(kept.sessionFile)))
    assert.isTrue(existsSync(join(runDir, "project")) && existsSync(join(runDir, "notes")), "the run's repository and notes are kept beside its session")
    // Stopped after one run: the other's result never written.
    writeFileSync(join(out, "results.jsonl"), `${lines[0]}\n`)
    const resumed = evalCli(["--resume", out])
    assert.strictEqual(resumed.status, 0, resumed.stderr)
    assert.match(resumed.stderr, /^1 runs \(1 done before\)/m)
    // What a marker names is shown before it is run: the flags, each arm (and the code an ext: arm loads), each setup.
    assert.match(resumed.stderr, /^--resume .*run runs what its eval-run\.json names:\n {2}flags: --tasks log-clue --arms compaction --seeds 2 --jobs 2 --out \S+\n {2}arm compaction\n[\s\S]*^1 runs/m)
    const after = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n")
    assert.strictEqual(after[0], lines[0])
    assert.deepStrictEqual(after.map((line) => (JSON.parse(line) as { seed: number }).seed).sort(), [1, 2])
    assert.match(readFileSync(join(out, "report.md"), "utf8"), /2 runs \(1 tasks × 1 arms × 2 seeds\)/)
    assert.match(evalCli(["--resume", tempDir("pi-eval-notarun-")]).stderr, /is no eval run's folder \(it has no eval-run\.json\)/)
  }, 150_000)
})
