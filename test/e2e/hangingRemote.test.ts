import { spawn } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fauxPromptArgs, piBin, piDirsIn, piEnv, repoRoot } from "./fixtures/piCli.ts"

/**
 * A sync remote that accepts the connection and never answers (a stalled
 * server), in the real `pi` CLI: the session's start pulls, its end pushes,
 * and each of those gits waits on the remote. When the run ends, no git it
 * started (nor any process of theirs) may still run, and no `index.lock` may
 * be left in the notes root: ten runs of ten, every other one ended by a
 * Ctrl+C (SIGINT, which Pi's print mode leaves to Node) while a git waits.
 */
const fauxExtension = join(import.meta.dirname, "fixtures", "fauxNotesScript.ts")
const Runs = 10

/** The process group of every process alive, by pid, read from /proc (Linux): git's children stay in its group. */
const groupsAlive = (): ReadonlyMap<number, number> => {
  const groups = new Map<number, number>()
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      // State, ppid, pgrp: a zombie has finished.
      if (fields[0] !== "Z") groups.set(Number(name), Number(fields[2]))
    } catch {
      // Gone between the listing and the read.
    }
  }
  return groups
}

/** One print run of the real CLI; with `interrupt`, sent SIGINT once a git has started and waited a moment. */
const runPi = (cwd: string, env: NodeJS.ProcessEnv, args: ReadonlyArray<string>, pids: string, interrupt: boolean) =>
  new Promise<{ readonly code: number | null; readonly signal: string | null; readonly stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [piBin, ...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`pi timed out\n${stderr}`))
    }, 40_000)
    const poll = setInterval(() => {
      if (!interrupt || !existsSync(pids) || readFileSync(pids, "utf8").trim() === "") return
      clearInterval(poll)
      setTimeout(() => child.kill("SIGINT"), 500)
    }, 50)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      clearInterval(poll)
      resolve({ code, signal, stderr })
    })
  })

const lockFiles = (dir: string): ReadonlyArray<string> =>
  existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).filter((file) => /(^|[\\/])index\.lock$/.test(file)) : []

describe.skipIf(process.platform !== "linux")("a sync remote that never answers, in the real pi CLI", () => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-hanging-remote-"))
  const sockets = new Set<Socket>()
  let server: Server
  let port = 0

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket)
      socket.on("error", () => {})
      socket.on("close", () => sockets.delete(socket))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    rmSync(root, { recursive: true, force: true })
  })

  it(`the run ends and leaves no git process and no index.lock behind, ${Runs} runs of ${Runs}`, async () => {
    const bin = join(root, "bin")
    mkdirSync(bin, { recursive: true })
    const pids = join(root, "git-pids")
    const realGit = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].find(existsSync) ?? "git"
    // Records each git pi-context starts (its pid leads its process group), then is that git.
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho $$ >> "${pids}"\nexec "${realGit}" "$@"\n`)
    chmodSync(join(bin, "git"), 0o755)
    const left: Array<string> = []
    for (let run = 0; run < Runs; run++) {
      rmSync(pids, { force: true })
      const dirs = piDirsIn(join(root, `run-${run}`))
      writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({ "pi-context": { sync: [{ homes: ["user"], remote: `http://127.0.0.1:${port}/notes.git` }] } }))
      const interrupted = run % 2 === 1
      const env = { ...piEnv(dirs), PATH: `${bin}:${process.env.PATH}` }
      const result = await runPi(dirs.project, env, fauxPromptArgs("write a note, then list the notes", [repoRoot, fauxExtension]), pids, interrupted)
      // Interrupted, Pi ends as it does on a Ctrl+C (by the signal, or at once when it was already ending).
      if (!interrupted) expect(result.code, result.stderr).toBe(0)
      else expect(result.signal === "SIGINT" || result.code === 0, `${result.code}/${result.signal}: ${result.stderr}`).toBe(true)
      const started = existsSync(pids) ? readFileSync(pids, "utf8").trim().split("\n").map(Number) : []
      expect(started.length).toBeGreaterThan(0)
      // A kill is delivered at once, but its process may take a moment to go.
      const deadline = Date.now() + 2_000
      let alive: Array<number> = []
      do {
        const groups = groupsAlive()
        alive = [...groups].filter(([pid, group]) => started.includes(pid) || started.includes(group)).map(([pid]) => pid)
        if (alive.length > 0) await new Promise((resolve) => setTimeout(resolve, 50))
      } while (alive.length > 0 && Date.now() < deadline)
      if (alive.length > 0) left.push(`run ${run}${interrupted ? " (SIGINT)" : ""}: processes ${alive.join(", ")} alive`)
      for (const lock of lockFiles(dirs.notesRoot)) left.push(`run ${run}: ${lock} left`)
      for (const pid of alive) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // Already gone.
        }
      }
    }
    expect(left).toEqual([])
  }, Runs * 40_000)
})
