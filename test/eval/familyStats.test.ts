import { assert, describe, it } from "@effect/vitest"
import { clusteredSuccess, familiesToTell, familyRows, familyTokenRatio, pairsByFamily } from "../../eval/harness/families.ts"
import { pairedSuccess, pairsOf } from "../../eval/harness/paired.ts"
import type { RunResult } from "../../eval/harness/types.ts"

const run = (task: string, arm: string, seed: number, success: boolean, tokens: number): RunResult =>
  ({ task, arm, seed, success, model: "scripted", tokens: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0 }, wallMs: 2_000, failure: undefined }) as unknown as RunResult

const tokens = (result: RunResult) => result.tokens.input

/** `seeds` pairs of one family: the arm's run and compaction's. */
const family = (task: string, seeds: number, arm: { success: boolean; tokens: number }, baseline: { success: boolean; tokens: number }) =>
  Array.from({ length: seeds }, (_, seed) => [run(task, "pi-context", seed + 1, arm.success, arm.tokens), run(task, "compaction", seed + 1, baseline.success, baseline.tokens)]).flat()

describe("statistics by family", () => {
  it("bootstraps the token ratio over whole families: many seeds of two disagreeing families do not narrow it, agreeing families give a point", () => {
    const disagreeing = [...family("a", 10, { success: true, tokens: 50 }, { success: true, tokens: 100 }), ...family("b", 10, { success: true, tokens: 200 }, { success: true, tokens: 100 })]
    const wide = familyTokenRatio(pairsByFamily(disagreeing, "pi-context", "compaction"), tokens)!
    assert.strictEqual(wide.families, 2)
    assert.closeTo(wide.ratio, 1.25, 1e-9)
    // A draw of family a alone gives 0.5, of b alone 2: the interval spans both, as two families allow.
    assert.closeTo(wide.low, 0.5, 1e-9)
    assert.closeTo(wide.high, 2, 1e-9)
    const agreeing = ["a", "b", "c"].flatMap((task) => family(task, 3, { success: true, tokens: 80 }, { success: true, tokens: 100 }))
    const point = familyTokenRatio(pairsByFamily(agreeing, "pi-context", "compaction"), tokens)!
    assert.deepInclude(point, { families: 3, emptyDraws: 0 })
    assert.closeTo(point.low, 0.8, 1e-9)
    assert.closeTo(point.high, 0.8, 1e-9)
    // The same results, the same interval.
    assert.deepStrictEqual(familyTokenRatio(pairsByFamily(disagreeing, "pi-context", "compaction"), tokens), wide)
  })

  it("counts tokens per solved run: an arm that solves half its runs at the same tokens costs twice as much", () => {
    const runs = [...family("a", 2, { success: true, tokens: 100 }, { success: true, tokens: 100 }), ...family("b", 2, { success: false, tokens: 100 }, { success: true, tokens: 100 })]
    assert.closeTo(familyTokenRatio(pairsByFamily(runs, "pi-context", "compaction"), tokens)!.ratio, 2, 1e-9)
  })

  it("tests success with families as clusters: one family's thirty seeds are one family, not thirty pairs", () => {
    const oneFamilyWins = [
      ...family("lucky", 30, { success: true, tokens: 1 }, { success: false, tokens: 1 }),
      ...["b", "c", "d", "e"].flatMap((task) => family(task, 1, { success: true, tokens: 1 }, { success: true, tokens: 1 }))
    ]
    // Counted as pairs, 30 discordant pairs all one way look decisive…
    const asPairs = pairedSuccess(pairsOf(oneFamilyWins, "pi-context", "compaction"))
    assert.isAbove(asPairs.low, 0)
    // …but it is one family of five that differs: flipping its sign is as likely, so nothing is shown.
    const clustered = clusteredSuccess(pairsByFamily(oneFamilyWins, "pi-context", "compaction"))!
    assert.deepInclude(clustered, { families: 5, pairs: 34 })
    assert.closeTo(clustered.difference, 0.2, 1e-9)
    assert.strictEqual(clustered.p, 1)
    // Twelve families each one way: only the two all-same sign patterns of 4,096 are as extreme.
    const everyFamilyWins = Array.from({ length: 12 }, (_, index) => family(`f${index}`, 1, { success: true, tokens: 1 }, { success: false, tokens: 1 })).flat()
    assert.closeTo(clusteredSuccess(pairsByFamily(everyFamilyWins, "pi-context", "compaction"))!.p, 2 / 4096, 1e-12)
  })

  it("counts the families a 20-point question needs from the families' spread, never from a spread of 0", () => {
    // ((1.96 + 0.84) · 0.5 / 0.2)² = 49.06: 50 families, 3 seeds each, in two arms.
    assert.deepStrictEqual(familiesToTell(0.2, 0.5, 0.5, 3), { families: 50, seedsPerFamily: 3, runs: 300 })
    // Every family agreeing (spread 0) still needs what binomial noise alone gives: √(2 · 0.5 · 0.5 / 3) = 0.41.
    assert.strictEqual(familiesToTell(0.2, 0, 0.5, 3).families, 33)
  })

  it("writes, for each model, the one question its run answers and the runs it needs", () => {
    const runs = ["a", "b", "c"].flatMap((task) => family(task, 2, { success: true, tokens: 80 }, { success: task !== "a", tokens: 100 }))
    const text = familyRows(runs, tokens).join("\n")
    assert.include(text, "### scripted")
    assert.include(text, "| pi-context | 3 | 6 | +33 |")
    assert.match(text, /The one question a run of scripted answers: does pi-context solve 20 points more \(or fewer\) of the families' runs than compaction\? With 2 seeds a family .* it takes \d+ families, \d+ runs in the two arms \(this run has 3 families: it cannot answer it yet\); at this run's median of 2 s a run, about [\d.]+ h of runs\./)
  })
})
