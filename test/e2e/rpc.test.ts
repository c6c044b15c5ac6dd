import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { piBin, piEnv, repoRoot, runPi } from "./fixtures/piCli.ts"

/**
 * The real `pi` CLI in RPC mode, offline, with pi-context installed in a temp
 * project (`pi install <repo> -l`, trusted with --approve) and a faux model
 * from `-e`: two resets (the model's wipe_memory, then /wipe-memory), then
 * `/pi-context windows`, whose plain text arrives as an extension notice.
 */
const fixture = join(import.meta.dirname, "fixtures", "fauxResets.ts")
const waitMs = 40_000

type Record_ = Record<string, any>

class RpcPi {
  readonly records: Array<Record_> = []
  private buffer = ""
  private waiters: Array<{ test: (r: Record_) => boolean; resolve: (r: Record_) => void }> = []
  readonly child: ChildProcessWithoutNullStreams
  stderr = ""

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [piBin, "--mode", "rpc", "--offline", "--approve", "--no-session", "-e", fixture, "--model", "faux/faux-1"], {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"]
    })
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (this.stderr += chunk))
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffer += chunk
      // Strict JSONL: split on LF only.
      let newline = this.buffer.indexOf("\n")
      while (newline !== -1) {
        const line = this.buffer.slice(0, newline).replace(/\r$/, "")
        this.buffer = this.buffer.slice(newline + 1)
        if (line.trim() !== "") this.push(JSON.parse(line) as Record_)
        newline = this.buffer.indexOf("\n")
      }
    })
  }

  private push(record: Record_) {
    this.records.push(record)
    this.waiters = this.waiters.filter((w) => (w.test(record) ? (w.resolve(record), false) : true))
  }

  /** The first record from `from` on that passes `test`. */
  waitFor(test: (r: Record_) => boolean, from = 0): Promise<Record_> {
    const seen = this.records.slice(from).find(test)
    if (seen !== undefined) return Promise.resolve(seen)
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching RPC record within ${waitMs} ms\nstderr:\n${this.stderr}`)), waitMs)
      this.waiters.push({ test, resolve: (r) => (clearTimeout(timer), resolvePromise(r)) })
    })
  }

  send(command: Record_) {
    this.child.stdin.write(`${JSON.stringify(command)}\n`)
  }

  /** Sends a prompt and waits until Pi is settled (a command is handled without a run). */
  async prompt(id: string, message: string) {
    const from = this.records.length
    this.send({ id, type: "prompt", message })
    const response = await this.waitFor((r) => r.type === "response" && r.id === id, from)
    expect(response.success, JSON.stringify(response)).toBe(true)
    if (response.data?.disposition === "handled") return
    await this.waitFor((r) => r.type === "agent_settled", from)
  }

  notices(): ReadonlyArray<string> {
    return this.records.filter((r) => r.type === "extension_ui_request" && r.method === "notify").map((r) => r.message as string)
  }
}

describe("the real pi CLI in RPC mode", () => {
  let root: string
  let pi: RpcPi

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "pi-context-rpc-"))
    const dirs = { home: join(root, "home"), agentDir: join(root, "home", "agent"), notesRoot: join(root, "notes"), project: join(root, "project") }
    for (const dir of [dirs.home, dirs.notesRoot, dirs.project]) mkdirSync(dir, { recursive: true })
    const env = piEnv({ ...dirs, root })
    const install = await runPi(dirs.project, env, ["install", repoRoot, "-l"])
    expect(install.code, install.stderr).toBe(0)
    pi = new RpcPi(dirs.project, env)
  })

  afterAll(() => {
    pi?.child.kill("SIGKILL")
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  })

  it("runs two resets and /pi-context windows shows both, with how each ended", async () => {
    await pi.prompt("p1", "begin the task")
    await pi.waitFor((r) => r.type === "message_end" && JSON.stringify(r.message?.content ?? "").includes("FRESH"))
    await pi.prompt("p2", "/wipe-memory")
    await pi.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" && String(r.message).includes("(/wipe-memory) · w3"))
    await pi.prompt("p3", "go on")
    const from = pi.records.length
    await pi.prompt("p4", "/pi-context windows")
    const report = (await pi.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" && String(r.message).startsWith("pi-context windows"), from))
      .message as string
    const lines = report.split("\n")
    expect(lines[0]).toMatch(/^pi-context windows · 3 on this branch, current w3/)
    expect(report).toMatch(/^w1 +began \d\d:\d\d · lasted \d+s · 1 turn · ended: wipe_memory$/m)
    expect(report).toMatch(/^w2 +began \d\d:\d\d · lasted \d+s · 1 turn · ended: \/wipe-memory$/m)
    expect(report).toMatch(/^w3 +began \d\d:\d\d · open for \d+s · 1 turn · open \(current\)$/m)
    expect(report).toContain("notes checkpoint.md")
    expect(report).toMatch(/peak \[[█·|!]+\] \d+% · [\d,]+ tokens/)
    // The reset notices name the kind and the w-number, never the opaque id.
    expect(pi.notices()).toContainEqual("pi-context: context reset (the model called wipe_memory) · w2 starts from your notes")
    expect(pi.notices().join("\n")).not.toMatch(/pcx:/)
  })
})
