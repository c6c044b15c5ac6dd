import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { figuresIn, figuresPage, readmeFigures, readmeSummary, summaryMarkers, summaryPage, withFigures } from "../../eval/harness/readme.ts"
import { repoRoot } from "../../eval/harness/session.ts"
import { committedScripted, readResults } from "../../eval/run.ts"

const results = readResults(committedScripted)
const evalPage = readFileSync(join(repoRoot, figuresPage), "utf8")
const readme = readFileSync(join(repoRoot, summaryPage), "utf8")

describe("the committed scripted run", () => {
  it("is what docs/eval.md's figures say: they are written from its results.jsonl by code", () => {
    assert.strictEqual(figuresPage, join("docs", "eval.md"))
    assert.strictEqual(figuresIn(evalPage), readmeFigures(results))
  })

  it("is what the README's summary says, written by the same code from the same results", () => {
    assert.strictEqual(summaryPage, "README.md")
    const summary = figuresIn(readme, summaryMarkers)
    assert.strictEqual(summary, readmeSummary(results))
    assert.match(summary, /^\d+ runs of \d+ tasks on a [\d,]+-token window: pi-context solved \d+ of \d+ and spent \d+\.\d\d of compaction's tokens per solved task/)
  })

  it("records the commit, Pi's version and the settings of every run, includes the masking arm, and no run stopped at max-calls", () => {
    for (const run of results) {
      assert.match(run.commit ?? "", /^[0-9a-f]{12}(\+changes)?$/, `${run.task} ${run.arm} ${run.seed}`)
      assert.isString(run.versions.pi)
      assert.isObject(run.settings)
      assert.notStrictEqual(run.failure?.kind, "max-calls", `${run.task} ${run.arm} ${run.seed}`)
    }
    assert.deepStrictEqual([...new Set(results.map((run) => run.arm))].sort(), ["compaction", "masking", "pi-context"])
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
