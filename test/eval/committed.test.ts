import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { figuresIn, readmeFigures, withFigures } from "../../eval/harness/readme.ts"
import { repoRoot } from "../../eval/harness/session.ts"
import { committedScripted, committedSweep, priceReference, readResults } from "../../eval/run.ts"

const results = readResults(committedScripted)
const readme = readFileSync(join(repoRoot, "README.md"), "utf8")

describe("the committed scripted run", () => {
  it("is what the README's eval figures say: they are written from its results.jsonl and the committed sweeps by code", async () => {
    assert.strictEqual(figuresIn(readme), readmeFigures(results, committedSweep(results), await priceReference()))
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

  it("puts figures between the README's markers only, refusing a README without them", () => {
    const start = readme.slice(0, readme.indexOf("<!-- eval-figures:start"))
    assert.isTrue(withFigures(readme, "new figures").startsWith(start))
    assert.include(withFigures(readme, "new figures"), "new figures\n<!-- eval-figures:end -->")
    assert.throws(() => withFigures("# no markers", "x"), /markers/)
  })
})
