/**
 * Runs every benchmark in bench/ (each `*.ts` here except this file), one at
 * a time as a child process on this Node, streaming its output; then prints
 * every bench/results/*.json. A failing benchmark is reported and the others
 * still run; the exit code says whether all of them finished.
 *
 *   npm run bench
 */
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const benchDir = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(benchDir, "results")
const self = basename(fileURLToPath(import.meta.url))

/** The usual order (cheap first), then any other benchmark alphabetically. */
const preferred = ["load.ts", "notes.ts", "history.ts", "adversarial.ts", "budget.ts", "projection.ts", "hooks.ts", "continuity.ts", "turnover.ts"]
const found = readdirSync(benchDir).filter((name) => name.endsWith(".ts") && name !== self && !name.endsWith(".d.ts"))
const benches = [
  ...preferred.filter((name) => found.includes(name)),
  ...found.filter((name) => !preferred.includes(name)).sort()
]

const runOne = (name: string): Promise<{ readonly code: number | null; readonly ms: number }> =>
  new Promise((resolve) => {
    const start = performance.now()
    // The same Node and flags as this process (type stripping on Node 22), inherited stdio streams the output.
    const child = spawn(process.execPath, [...process.execArgv, join(benchDir, name)], { stdio: "inherit", cwd: dirname(benchDir) })
    child.on("error", (error) => {
      console.error(`could not start ${name}: ${error.message}`)
      resolve({ code: null, ms: performance.now() - start })
    })
    child.on("exit", (code, signal) => {
      if (signal !== null) console.error(`${name} was killed by ${signal}`)
      resolve({ code, ms: performance.now() - start })
    })
  })

const outcomes: Array<{ readonly name: string; readonly code: number | null; readonly ms: number }> = []
for (const name of benches) {
  console.log(`\n=== bench/${name} ===`)
  const outcome = await runOne(name)
  outcomes.push({ name, ...outcome })
}

console.log("\n=== summary ===")
for (const { name, code, ms } of outcomes) {
  console.log(`  ${name.padEnd(16)} ${code === 0 ? "ok    " : `FAILED (exit ${code ?? "none"})`} ${(ms / 1000).toFixed(1)} s`)
}
console.log("\nbench/results:")
const results = (() => {
  try {
    return readdirSync(resultsDir).filter((name) => name.endsWith(".json")).sort()
  } catch {
    return []
  }
})()
if (results.length === 0) console.log("  (none)")
for (const name of results) {
  const text = readFileSync(join(resultsDir, name), "utf8")
  try {
    const figures = JSON.parse(text) as Record<string, unknown>
    const line = Object.entries(figures).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join("  ")
    console.log(`  ${name.padEnd(18)} ${line}`)
  } catch {
    console.log(`  ${name.padEnd(18)} (not valid JSON) ${text.slice(0, 200).trim()}`)
  }
}

const failed = outcomes.filter((outcome) => outcome.code !== 0)
if (failed.length > 0) {
  console.error(`\n${failed.length} benchmark(s) failed: ${failed.map((outcome) => outcome.name).join(", ")}`)
  process.exitCode = 1
}
