import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tasks } from "../../eval/tasks/index.ts"
import type { Task } from "../../eval/tasks/taskTypes.ts"
import { tempDir } from "../support/tempDirs.ts"

/**
 * Each verifier judges the work, not its wording: a solution written another
 * valid way passes, a near miss fails; and each question's answer is
 * recognised however it is phrased, but not when it is wrong.
 */
const task = (name: string): Task => tasks.find((candidate) => candidate.name === name)!

/** The task's repository at `seed`, solved by the reference solution, then changed by `change`. */
const solvedThen = (name: string, seed: number, change: (dir: string) => void) => {
  const dir = tempDir(`pi-context-verify-${name}-`)
  task(name).generate(dir, seed)
  task(name).solve(dir, seed)
  change(dir)
  return task(name).verify(dir, seed)
}

const edit = (dir: string, path: string, f: (text: string) => string) => writeFileSync(join(dir, path), f(readFileSync(join(dir, path), "utf8")))
const answerOf = (name: string, seed: number, id: string) => task(name).messages(seed).find((message) => message.id === id)!.answer!
const passes = (verdict: { pass: boolean; failures: ReadonlyArray<string> }) => assert.isTrue(verdict.pass, verdict.failures.join("; "))

describe("the eval's verifiers judge the work", () => {
  it("rename-symbol: a changelog naming the new function passes; one old name left in a file fails; the count in any words", () => {
    const [, from, to] = /Rename the function `(\w+)` to `(\w+)`/.exec(task("rename-symbol").messages(1)[0]!.text)!
    passes(solvedThen("rename-symbol", 1, (dir) => writeFileSync(join(dir, "CHANGELOG.md"), `- renamed to ${to}\n`)))
    const near = solvedThen("rename-symbol", 1, (dir) => edit(dir, "test/run.mjs", (text) => `// was ${from}\n${text}`))
    assert.isFalse(near.pass)
    assert.include(near.failures.join(), `${from} is still in test/run.mjs`)
    const count = answerOf("rename-symbol", 1, "count")
    const changed = Number(/\d+/.exec(count.source)![0])
    for (const reply of [`I changed ${changed} files.`, `Files changed: ${changed}`]) assert.match(reply, count)
    for (const reply of [`I changed ${changed + 1} files.`, `${changed}0 files`]) assert.notMatch(reply, count)
  })

  it("log-clue: the setting fixed as 9000 (9s read as milliseconds) passes; another setting changed too fails", () => {
    // Seed 3's bad setting is timeout_ms.
    const bad = (dir: string) => readFileSync(join(dir, "config/app.ini"), "utf8").split("\n").find((line) => /=\s*\S*[^\d\s]/.test(line))
    const untouched = tempDir("pi-context-verify-log-")
    task("log-clue").generate(untouched, 3)
    const [key, value] = bad(untouched)!.split("=").map((part) => part.trim()) as [string, string]
    assert.strictEqual(key, "timeout_ms")
    const asMs = String(Number.parseInt(value, 10) * 1000)
    passes(solvedThen("log-clue", 3, (dir) => edit(dir, "config/app.ini", (text) => text.replace(new RegExp(`^${key} = \\d+$`, "m"), `${key}=${asMs}`))))
    const near = solvedThen("log-clue", 3, (dir) => edit(dir, "config/app.ini", (text) => text.replace(/^retry_limit = \d+$/m, "retry_limit = 1")))
    assert.isFalse(near.pass)
    assert.include(near.failures.join(), "changed retry_limit, which were right")
  })

  it("frozen-rules: the helper called with single quotes passes; a handler that calls it without importing it fails; the count in any words", () => {
    const handler = (dir: string) => join("src/handlers", readdirSync(join(dir, "src/handlers")).sort()[0]!)
    passes(solvedThen("frozen-rules", 1, (dir) => edit(dir, handler(dir), (text) => text.replaceAll(/\(req, "(\w+)"\)/g, "(req, '$1')"))))
    const near = solvedThen("frozen-rules", 1, (dir) => edit(dir, handler(dir), (text) => text.replace(/^import .*\n/m, "")))
    assert.isFalse(near.pass)
    assert.include(near.failures.join(), "does not refuse an empty request with ValidationError")
    const count = answerOf("frozen-rules", 1, "count")
    const changed = Number(/\d+/.exec(count.source)![0])
    for (const reply of [`I changed ${changed} handlers.`, `Handlers updated: ${changed}.`]) assert.match(reply, count)
    assert.notMatch(`I changed ${changed - 1} handlers.`, count)
  })

  it("build-key: a module importing node:path as a namespace passes; one module left with module.exports fails; the key, not a near one", () => {
    const module = (dir: string) => join("src", readdirSync(join(dir, "src")).sort()[0]!)
    passes(solvedThen("build-key", 1, (dir) =>
      edit(dir, module(dir), (text) => text.replace('import path from "node:path"', 'import * as path from "node:path"'))))
    const near = solvedThen("build-key", 1, (dir) => edit(dir, module(dir), (text) => `${text}\nmodule.exports = {}\n`))
    assert.isFalse(near.pass)
    assert.include(near.failures.join(), "still CommonJS")
    const key = answerOf("build-key", 1, "key")
    const shown = key.source
    assert.match(`The first build said to use BUILD_KEY=${shown}.`, key)
    assert.notMatch(`BUILD_KEY=${shown.slice(0, -1)}${shown.endsWith("0") ? "1" : "0"}`, key)
  })

  it("ledger-stages: an extra helper exported beside the ledger passes; account names kept case-sensitive fails; the currency, not another", () => {
    passes(solvedThen("ledger-stages", 1, (dir) => edit(dir, "src/ledger.js", (text) => `${text}\nexport const cents = (euros) => Math.round(euros * 100)\n`)))
    const near = solvedThen("ledger-stages", 1, (dir) => edit(dir, "src/ledger.js", (text) => text.replaceAll(".toLowerCase()", "")))
    assert.isFalse(near.pass)
    const currency = answerOf("ledger-stages", 1, "currency")
    const code = /[A-Z]{3}/.exec(currency.source)![0]
    assert.match(`The header will show ${code}.`, currency)
    assert.notMatch(`The header will show ${code === "USD" ? "EUR" : "USD"}.`, currency)
  })

  it("mid-question: a JSDoc block with an @returns line too passes; one @param missing fails; the file named with the function, not in passing", () => {
    const first = (dir: string) => join("src", readdirSync(join(dir, "src")).sort()[0]!)
    passes(solvedThen("mid-question", 1, (dir) => edit(dir, first(dir), (text) => text.replace(" */\nexport function", " * @returns what it computes\n */\nexport function"))))
    const near = solvedThen("mid-question", 1, (dir) => edit(dir, first(dir), (text) => text.replace(/^ \* @param .*\n/m, "")))
    assert.isFalse(near.pass)
    assert.include(near.failures.join(), "has no JSDoc block with its @param lines")
    const question = answerOf("mid-question", 1, "question")
    const holder = /\\b(\w+)\\\.js/.exec(question.source)![1]
    assert.match(`computeChecksum is defined in src/${holder}.js.`, question)
    assert.notMatch(`Now documenting src/${holder}.js.`, question)
  })

  it("chained-requests: CHANGES.md in other words passes; one ticket forgotten fails; the first ticket, not another", () => {
    const tickets = [...task("chained-requests").messages(1).map((message) => message.text).join(" ").matchAll(/ticket (OPS-\d+)/g)].map((match) => match[1]!)
    passes(solvedThen("chained-requests", 1, (dir) =>
      edit(dir, "CHANGES.md", (text) => `# Changes\n\n${text.replace(/^- (OPS-\d+): (\w+) = (.*)$/gm, "* $2 set to $3 ($1)")}`)))
    const near = solvedThen("chained-requests", 1, (dir) => edit(dir, "CHANGES.md", (text) => text.replace(tickets[1]!, "OPS-0000")))
    assert.isFalse(near.pass)
    assert.include(near.failures.join(), `CHANGES.md has no line with ${tickets[1]}`)
    const question = answerOf("chained-requests", 1, "ticket")
    assert.match(`That was ticket ${tickets[0]}.`, question)
    assert.notMatch(`That was ticket ${tickets[1]}.`, question)
  })
})
