// `npm run test:leftovers [-- <test paths>]`: runs tests (by default the SDK,
// eval and service tests) with TMPDIR pointing at a fresh, empty folder, then
// lists what they left in it, counted by name before the random suffix. Exits
// 1 when something is left; the tests' own result is vitest's, printed above.
//
// Under another TMPDIR, test/eval/committed.test.ts reports drift: the eval's
// task folders live in the temp folder and their path is in what the model is
// sent, so a longer path changes the token figures it compares.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const paths = process.argv.slice(2)
const scratch = mkdtempSync(join(tmpdir(), "pi-context-leftovers-"))
// jiti, which Pi loads TypeScript extensions with, keeps its compile cache here: one cache for every run, named by content.
const sharedCaches = new Set(["jiti"])

const started = Date.now()
const run = spawnSync(process.execPath, [join(repoRoot, "node_modules", "vitest", "vitest.mjs"), "run", ...(paths.length > 0 ? paths : ["test/sdk", "test/eval", "test/services"])], {
  cwd: repoRoot,
  stdio: "inherit",
  env: { ...process.env, TMPDIR: scratch }
})
const seconds = ((Date.now() - started) / 1000).toFixed(1)

const left = readdirSync(scratch).filter((name) => !sharedCaches.has(name))
const byPrefix = new Map()
for (const name of left) {
  const prefix = name.replace(/[A-Za-z0-9]{6}$/, "*")
  byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1)
}
rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })

console.log(`\ntests ran in ${seconds} s (vitest exit ${run.status}); left in the temp folder: ${left.length}`)
for (const [prefix, count] of [...byPrefix].sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(5)}  ${prefix}`)
process.exit(left.length > 0 ? 1 : 0)
