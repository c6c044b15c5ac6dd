import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "../../eval/harness/args.ts"
import { resumeFrom } from "../../eval/harness/outDir.ts"
import { runPool } from "../../eval/harness/pool.ts"
import { figuresIn, figuresPage, readmeFigures, readmeSummary, summaryMarkers, summaryPage, withFigures } from "../../eval/harness/readme.ts"
import { repoRoot } from "../../eval/harness/session.ts"
import type { RunResult } from "../../eval/harness/types.ts"
import { committedScripted, committedSweep, jobsFor, priceReference, readResults } from "../../eval/run.ts"
import { tempDir } from "../support/tempDirs.ts"

const results = readResults(committedScripted)
const evalPage = readFileSync(join(repoRoot, figuresPage), "utf8")
const readme = readFileSync(join(repoRoot, summaryPage), "utf8")

describe("the committed scripted run", () => {
  it("is what docs/eval.md's figures say: they are written from its results.jsonl and the committed sweeps by code", async () => {
    assert.strictEqual(figuresPage, join("docs", "eval.md"))
    assert.strictEqual(figuresIn(evalPage), readmeFigures(results, committedSweep(results), await priceReference()))
  })

  it("is what the README's summary says, written by the same code from the same results", async () => {
    assert.strictEqual(summaryPage, "README.md")
    const summary = figuresIn(readme, summaryMarkers)
    assert.strictEqual(summary, readmeSummary(results, committedSweep(results), await priceReference()))
    assert.match(summary, /^\d+ scripted runs of \d+ tasks on a [\d,]+-token window \(a mechanical regression suite, not a model's success\): pi-context \d+ of \d+, .* solved\. At each arm's best setting, pi-context costs/)
  })

  it("records the commit, Pi's version and the settings of every run, includes the masking arm, and no run stopped at max-calls", () => {
    for (const run of results) {
      assert.match(run.commit ?? "", /^[0-9a-f]{12}(\+changes)?$/, `${run.task} ${run.arm} ${run.seed}`)
      assert.isString(run.versions.pi)
      assert.isObject(run.settings)
      assert.notStrictEqual(run.failure?.kind, "max-calls", `${run.task} ${run.arm} ${run.seed}`)
    }
    assert.deepStrictEqual([...new Set(results.map((run) => run.arm))].sort(), ["compaction", "hybrid", "masking", "pi-context"])
    // Probes in every arm, masking included.
    for (const arm of ["compaction", "hybrid", "masking", "pi-context"]) assert.isAbove(results.filter((run) => run.arm === arm).flatMap((run) => run.probes).length, 0, arm)
  })

  it("puts figures between a page's markers only, refusing a page without them", () => {
    const start = evalPage.slice(0, evalPage.indexOf("<!-- eval-figures:start"))
    assert.isTrue(withFigures(evalPage, "new figures").startsWith(start))
    assert.include(withFigures(evalPage, "new figures"), "new figures\n<!-- eval-figures:end -->")
    assert.include(withFigures(readme, "new summary", summaryMarkers), "new summary\n<!-- eval-summary:end -->")
    assert.throws(() => withFigures("# no markers", "x"), /markers/)
    assert.throws(() => withFigures("# no markers", "x", summaryMarkers), /markers/)
  })
})

/** What a rerun must give again, run for run: everything the figures are made of (not its wall time, paths or commit). */
const figuresOf = (run: RunResult) => ({
  success: run.success,
  failure: run.failure?.kind,
  tokens: run.tokens,
  modelCalls: run.modelCalls,
  turnovers: run.turnovers,
  probes: run.probes,
  calls: run.calls,
  requests: run.requests
})

describe("the committed scripted run cannot drift", () => {
  it("gives the same figures again, run for run, when one seed of every task and arm is run again with its own flags", async () => {
    const out = tempDir("pi-context-eval-rerun-")
    // The committed run's own flags, from its marker: whatever arms, tasks and settings it holds are what is rerun.
    const options = parseArgs([...resumeFrom(committedScripted).argv, "--out", out])
    const seed = Math.min(...results.map((run) => run.seed))
    const specs = jobsFor(options, repoRoot, out).filter((spec) => spec.seed === seed)
    assert.strictEqual(specs.length, results.filter((run) => run.seed === seed).length, "the rerun covers every task and arm of the committed seed")
    const rerun = await runPool(specs, { jobs: 2, maxUsd: undefined })
    // Every run that moved, with the figures that moved: the whole drift at once, not its first run.
    const drifted = rerun.flatMap((run) => {
      const committed = results.find((candidate) => candidate.task === run.task && candidate.arm === run.arm && candidate.seed === run.seed)
      if (committed === undefined) return [`${run.task} · ${run.arm} · seed ${run.seed}: not in the committed results`]
      const now = figuresOf(run)
      const then = figuresOf(committed)
      const moved = (Object.keys(now) as Array<keyof typeof now>).filter((key) => JSON.stringify(now[key]) !== JSON.stringify(then[key]))
      return moved.length === 0 ? [] : [`${run.task} · ${run.arm} · seed ${run.seed}: ${moved.map((key) => `${key} ${JSON.stringify(then[key]).slice(0, 120)} -> ${JSON.stringify(now[key]).slice(0, 120)}`).join("; ")}`]
    })
    assert.deepStrictEqual(drifted, [], "the committed run no longer reproduces: rerun `npm run eval` and commit eval/results/scripted")
  }, 600_000)
})
