import { assert, describe, it } from "@effect/vitest"
import { pairedSuccess, pairedTokenRatio, pairsOf, pairsToTell } from "../../eval/harness/paired.ts"
import { renderReport } from "../../eval/harness/report.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { readmeFigures } from "../../eval/harness/readme.ts"

const run = (arm: string, task: string, seed: number, success: boolean, tokens: number, overrides: Partial<RunResult> = {}): RunResult => ({
  task, arm, seed, model: "scripted", scripted: true, window: 32_000,
  versions: { piContext: "0.1.0", pi: "1.6.0", model: "scripted/scripted-agent" },
  commit: "0123456789ab", settings: {}, stuck: false, probes: [], resets: [], success, verifierPassed: success,
  verifierFailures: success ? [] : ["not done"], requests: [], earlyStop: !success, statedBlocked: false, repliesToOlderRequests: 0,
  turnovers: { resets: 0, resetsBySource: {}, compactions: 0, total: seed },
  modelCalls: 10, tokens: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0 }, costUsd: 0, wallMs: 1_000,
  notesWritten: 0, historyToolCalls: 0, failure: undefined, sessionFile: undefined, calls: [],
  ...overrides
})

describe("paired figures: an arm against compaction on the same task and seed", () => {
  const results = [
    run("pi-context", "a", 1, true, 600), run("compaction", "a", 1, true, 1_000),
    run("pi-context", "a", 2, true, 700), run("compaction", "a", 2, false, 1_000),
    run("pi-context", "b", 1, false, 900), run("compaction", "b", 1, true, 1_000),
    run("pi-context", "b", 2, true, 800), run("compaction", "b", 2, true, 1_000),
    // No partner: left out of the pairs.
    run("pi-context", "c", 1, true, 100)
  ]

  it("pairs runs by task and seed, and counts where the two disagree", () => {
    const pairs = pairsOf(results, "pi-context", "compaction")
    assert.strictEqual(pairs.length, 4)
    const success = pairedSuccess(pairs)
    assert.deepInclude(success, { pairs: 4, bothSolved: 2, onlyArm: 1, onlyBaseline: 1, difference: 0 })
    assert.isBelow(success.low, 0)
    assert.isAbove(success.high, 0)
  })

  it("gives pairs that all agree an interval as wide as their number allows, not a single point", () => {
    const agreeing = Array.from({ length: 18 }, (_, seed) => [run("pi-context", "a", seed, true, 1), run("compaction", "a", seed, true, 1)]).flat()
    const success = pairedSuccess(pairsOf(agreeing, "pi-context", "compaction"))
    assert.strictEqual(success.difference, 0)
    assert.approximately(success.high, 0.098, 0.002)
    assert.approximately(success.low, -0.098, 0.002)
    // One arm solving every pair the other failed: the interval leaves zero out.
    const better = Array.from({ length: 18 }, (_, seed) => [run("pi-context", "a", seed, true, 1), run("compaction", "a", seed, false, 1)]).flat()
    assert.isAbove(pairedSuccess(pairsOf(better, "pi-context", "compaction")).low, 0.5)
  })

  it("takes the token ratio on the pairs both solved, as a geometric mean with its interval", () => {
    const ratio = pairedTokenRatio(pairsOf(results, "pi-context", "compaction"), (result) => result.tokens.input)!
    assert.strictEqual(ratio.pairs, 2)
    assert.approximately(ratio.ratio, Math.sqrt(0.6 * 0.8), 1e-9)
    assert.isBelow(ratio.low, ratio.ratio)
    assert.isAbove(ratio.high, ratio.ratio)
  })

  it("says how many pairs a difference needs (McNemar, 95%, 80% power)", () => {
    assert.strictEqual(pairsToTell(0.1, 0.2), 155)
    assert.isBelow(pairsToTell(0.2, 0.3), pairsToTell(0.1, 0.2))
  })

  it("in the report and the README: paired rows, success apart for runs that turned over, and runs the provider ended left out of every figure", () => {
    const ended = run("pi-context", "d", 1, false, 5, { failure: { kind: "rate-limit", message: "429 too many requests" } })
    const report = renderReport([...results, ended, run("compaction", "d", 1, true, 5)])
    assert.include(report, "## Paired against compaction")
    assert.include(report, "| pi-context | 4 | ±0 (")
    assert.include(report, "**1 runs were ended by the provider or the harness**")
    assert.include(report, "- pi-context, d, seed 1: rate-limit: 429 too many requests")
    // Seeds 1 and 2 turned over once and twice: none three times.
    assert.include(report, "| pi-context | 4/5 (80%, ")
    assert.match(report, /## Runs whose window turned over\n\n.*\n.*\n\| pi-context \| 4\/5 \(80%, [^|]+\| – \| 0 \|/)
    assert.notInclude(report.split("## Paired")[0]!, "5/6")
    const readme = readmeFigures([...results, ended])
    assert.include(readme, "At the defaults, what a solved task costs:")
    assert.include(readme, "takes about 155 pairs")
  })
})
