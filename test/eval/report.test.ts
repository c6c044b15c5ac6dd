import { assert, describe, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { median, renderReport, runsToTell, wilson } from "../../eval/harness/report.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { readResults, writeReport } from "../../eval/run.ts"
import { tempDir } from "../support/tempDirs.ts"

const run = (arm: string, seed: number, success: boolean, overrides: Partial<RunResult> = {}): RunResult => ({
  task: "rename-symbol",
  arm,
  seed,
  model: "scripted",
  scripted: true,
  window: 32_000,
  versions: { piContext: "0.1.0", pi: "1.6.0", model: "scripted/scripted-agent" },
  commit: "0123456789ab",
  settings: {},
  stuck: false,
  probes: [],
  resets: [],
  success,
  verifierPassed: success,
  verifierFailures: success ? [] : ["getUserRecord is still in src/a.js"],
  requests: [{ id: "rename", sent: true, sentAs: "start", answered: true, repeatedAfterTurnover: 0 }],
  earlyStop: !success,
  statedBlocked: false,
  repliesToOlderRequests: 0,
  turnovers: { resets: arm === "pi-context" ? 4 : 0, resetsBySource: {}, compactions: arm === "compaction" ? 3 : 0, total: arm === "none" ? 0 : arm === "pi-context" ? 4 : 3 },
  modelCalls: 50 + seed,
  tokens: { input: 1_000 * seed, output: 100, cacheRead: 10_000, cacheWrite: 0 },
  costUsd: 0,
  wallMs: 2_000,
  notesWritten: 2,
  historyToolCalls: 0,
  failure: undefined,
  sessionFile: undefined,
  calls: [],
  ...overrides
})

describe("the eval report", () => {
  it("gives Wilson's 95% interval for a success rate", () => {
    const none = wilson(0, 3)
    assert.strictEqual(none.low, 0)
    assert.closeTo(none.high, 0.5615, 1e-4)
    const all = wilson(3, 3)
    assert.closeTo(all.low, 0.4385, 1e-4)
    assert.strictEqual(all.high, 1)
    const most = wilson(15, 18)
    assert.closeTo(most.low, 0.6078, 1e-4)
    assert.closeTo(most.high, 0.9416, 1e-4)
  })

  it("takes the middle value, or the mean of the two middle ones", () => {
    assert.strictEqual(median([3, 1, 2]), 2)
    assert.strictEqual(median([4, 1, 3, 2]), 2.5)
  })

  it("says a scripted run's success rate is no figure of a real model, and gives each arm its row, overall and per task, with why a run failed", () => {
    const report = renderReport([run("pi-context", 1, true), run("pi-context", 2, true), run("compaction", 1, true), run("compaction", 2, false)])
    assert.include(report, "Its success and its probe answers measure the stand-in's habits as much as the arm")
    assert.include(report, "| pi-context | 2/2 (100%, 34%–100%) |")
    assert.include(report, "| compaction | 1/2 (50%, 9%–91%) |")
    assert.include(report, "- compaction, seed 2: getUserRecord is still in src/a.js")
    // The decision table, the probes', the paired one, the one by family, the turnovers', the overall table and the one task's.
    assert.strictEqual(report.split("| pi-context |").length - 1, 7)
  })

  it("leads with money and tokens per solved task against compaction, stuck runs, and how many runs could tell 80% from 90%", () => {
    const tokens = (total: number) => ({ tokens: { input: 0, output: 0, cacheRead: total / 2, cacheWrite: total / 2 } })
    const report = renderReport([
      run("compaction", 1, true, tokens(1_000)),
      run("compaction", 2, false, tokens(1_000)),
      run("pi-context", 1, true, tokens(600)),
      run("pi-context", 2, true, { ...tokens(600), stuck: true })
    ], { name: "m", cost: { input: 3, output: 15, cacheRead: 300, cacheWrite: 3_750 } })
    const decision = report.slice(report.indexOf("## What a solved task costs"), report.indexOf("## Memory probes"))
    // compaction: 2,000 tokens over 1 solved task (1,000 read, 1,000 written: $0.30 + $3.75); pi-context: 1,200 over 2.
    assert.include(decision, "| compaction | $4.05 | 1.00 | 2,000 | 1.00 | 50% | 1/2 | 0 | 1 | 0 |")
    assert.include(decision, "| pi-context | $1.22 | 0.30 | 600 | 0.30 | 50% | 2/2 | 0 | 0 | 1 |")
    assert.strictEqual(runsToTell(0.8, 0.9), 199)
    assert.include(decision, "about 199 runs per arm")
  })

  it("prices a scripted run's tokens at a named model's prices", () => {
    const report = renderReport([run("pi-context", 1, true)], { name: "anthropic/claude-sonnet-4-6", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } })
    // 1,000 input, 10,000 cache reads, 100 output: 0.003 + 0.003 + 0.0015 dollars.
    assert.include(report, "| pi-context | 1,000 | 10,000 | 0 | 100 | $0.0075 |")
  })
})

describe("--report DIR", () => {
  it("rebuilds report.md and a Vega-Lite SVG chart from results.jsonl: one line per arm, turnovers marked", async () => {
    const dir = tempDir("pi-context-eval-report-")
    const calls = (turnover: "reset" | "compaction") =>
      Array.from({ length: 12 }, (_, index) => ({ call: index + 1, sent: 4_000 + (index % 6) * 2_000, turnoverBefore: index === 6 ? turnover : undefined }))
    const results = [run("pi-context", 1, true, { calls: calls("reset") }), run("compaction", 1, true, { calls: calls("compaction") })]
    writeFileSync(join(dir, "results.jsonl"), results.map((result) => JSON.stringify(result)).join("\n") + "\n")
    await writeReport(dir, readResults(dir))
    assert.include(readFileSync(join(dir, "report.md"), "utf8"), "| compaction | 1/1 (100%, 21%–100%) |")
    const svg = readFileSync(join(dir, "chart.svg"), "utf8")
    assert.match(svg, /^<svg /)
    for (const text of ["Tokens sent per model call", "model call", "tokens sent", "pi-context", "compaction", "reset"]) assert.include(svg, `>${text}</text>`)
  })
})

describe("npm run eval flags", () => {
  it("defaults to the scripted agent, pi-context against compaction, masking and the hybrid, every task, 3 seeds, a 32,000-token window", () => {
    const options = parseArgs([])
    assert.strictEqual(options.model, "scripted")
    assert.deepStrictEqual(options.arms, ["pi-context", "compaction", "masking", "hybrid"])
    assert.strictEqual(options.tasks, "all")
    assert.strictEqual(options.seeds, 3)
    assert.strictEqual(options.window, 32_000)
    assert.strictEqual(options.out, "eval/results/scripted")
  })

  it("takes a model from the user's set-up, any extension as an arm, and refuses what it does not know", () => {
    const options = parseArgs(["--model", "openai/gpt-5", "--arms", "pi-context,ext:./other-ext,none", "--max-usd", "5", "--window=64000"])
    assert.strictEqual(options.out, "eval/results/openai_gpt-5")
    assert.deepStrictEqual(options.arms, ["pi-context", "ext:./other-ext", "none"])
    assert.strictEqual(options.maxUsd, 5)
    assert.strictEqual(options.window, 64_000)
    assert.throws(() => parseArgs(["--arms", "summaries"]), /unknown arm summaries/)
    assert.throws(() => parseArgs(["--model", "gpt-5"]), /provider\/id/)
    assert.throws(() => parseArgs(["--seeds", "0"]), /whole number/)
    assert.throws(() => parseArgs(["--colour", "red"]), /unknown flag --colour/)
  })
})
