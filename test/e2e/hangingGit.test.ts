import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fauxPromptArgs, piDirsIn, piEnv, repoRoot, runPi } from "./fixtures/piCli.ts"

/**
 * A `git` on PATH that never answers (a hung credential helper, a network
 * mount): every call records its process id and sleeps. The real `pi` CLI
 * writes a note, so the session's end commits it through that git; the run
 * must still end within the shutdown's bound, and leave no git behind.
 */
const fauxExtension = join(import.meta.dirname, "fixtures", "fauxNotesScript.ts")

/** Alive, and not a zombie waiting for a parent to reap it. */
const isRunning = (pid: number): boolean => {
  const stat = `/proc/${pid}/stat`
  if (existsSync(stat)) return !/^\d+ \(.*\) Z/.test(readFileSync(stat, "utf8"))
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("a git that hangs, in the real pi CLI", () => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-hanging-git-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("the run ends within the shutdown's bound and no git process outlives it", async () => {
    const dirs = piDirsIn(join(root, "run"))
    const bin = join(root, "bin")
    const pids = join(root, "git-pids")
    rmSync(bin, { recursive: true, force: true })
    mkdirSync(bin)
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho $$ >> "${pids}"\nexec sleep 120\n`)
    chmodSync(join(bin, "git"), 0o755)
    const started = Date.now()
    const result = await runPi(dirs.project, { ...piEnv(dirs), PATH: `${bin}:${process.env.PATH}` }, fauxPromptArgs("write a note, then list the notes", [repoRoot, fauxExtension]))
    const tookMs = Date.now() - started
    expect(result.code, result.stderr).toBe(0)
    // The note was written, and the session's end tried to commit it through the hanging git.
    expect(existsSync(pids)).toBe(true)
    const spawned = readFileSync(pids, "utf8").trim().split("\n").map(Number)
    expect(spawned.length).toBeGreaterThan(0)
    // A kill is delivered at once, but its process may take a moment to go.
    const deadline = Date.now() + 2_000
    while (spawned.some(isRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(spawned.filter(isRunning)).toEqual([])
    // Start-up, the prompt and the shutdown's three-second wait for the commit: well under the run's own time limit.
    expect(tookMs).toBeLessThan(30_000)
  })
})
