import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { piBin, piEnv, repoRoot } from "./fixtures/piCli.ts"

/**
 * The real `pi` CLI in its interactive TUI, run under tmux (its own server on
 * a socket in a temp dir) on a 120x60 screen, offline, with pi-context and the
 * faux model of fixtures/fauxResets.ts loaded through `-e`: on the first
 * prompt the model writes a checkpoint and calls wipe_memory, then answers
 * the continuation in the new window; then the user types /wipe-memory. The
 * tests read the screen as the user sees it, in order.
 */
const fixture = join(import.meta.dirname, "fixtures", "fauxResets.ts")
const waitMs = 45_000
const prompt = "begin the task TUI-PROMPT-7"

describe("the reset in Pi's TUI", () => {
  let root: string
  let socket: string
  const tmux = (...args: ReadonlyArray<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" })
  /** The visible screen, wrapped lines joined. */
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", "pi")
  const waitForScreen = async (test: (text: string) => boolean, what: string): Promise<string> => {
    const deadline = Date.now() + waitMs
    for (;;) {
      const text = screen()
      if (test(text)) return text
      if (Date.now() > deadline) throw new Error(`the screen never showed ${what} within ${waitMs} ms:\n${text}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "pi-context-tui-"))
    const dirs = { root, home: join(root, "home"), agentDir: join(root, "agent"), notesRoot: join(root, "notes") }
    const project = join(root, "project")
    for (const dir of [dirs.home, dirs.agentDir, dirs.notesRoot, project]) mkdirSync(dir, { recursive: true })
    socket = join(root, "tmux.sock")
    const command = [process.execPath, piBin, "--offline", "--no-session", "-e", repoRoot, "-e", fixture, "--model", "faux/faux-1"]
      .map((part) => `'${part}'`)
      .join(" ")
    execFileSync("tmux", ["-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "pi", "-x", "120", "-y", "60", "-c", project, command], {
      env: { ...piEnv(dirs), TERM: "xterm-256color" }
    })
  })

  afterAll(async () => {
    const pid = Number(tmux("display-message", "-p", "-t", "pi", "#{pane_pid}").trim())
    tmux("kill-server")
    // Pi writes its trace and session files until it exits: wait for it before removing its dirs.
    const deadline = Date.now() + 10_000
    const alive = () => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
  })

  it("after the model's wipe_memory the user still sees the exchange that ended the window, then one divider and no notice repeating it", async () => {
    await waitForScreen((text) => text.includes("pi-context · "), "pi-context's status line")
    tmux("send-keys", "-t", "pi", "-l", prompt)
    tmux("send-keys", "-t", "pi", "Enter")
    const text = await waitForScreen((t) => t.includes("FRESH: continuing from the checkpoint"), "the reply in the new window")
    const divider = text.indexOf("── context reset: the model called wipe_memory")
    expect(divider).toBeGreaterThan(-1)
    // The prompt, the checkpoint tool call and the wipe_memory call stay on screen above the divider.
    expect(text.indexOf(prompt)).toBeGreaterThan(-1)
    expect(text.indexOf(prompt)).toBeLessThan(divider)
    expect(text.indexOf("notes_write checkpoint")).toBeGreaterThan(text.indexOf(prompt))
    expect(text.indexOf("Memory wipe scheduled")).toBeLessThan(divider)
    expect(text.indexOf("FRESH: continuing from the checkpoint")).toBeGreaterThan(divider)
    expect(text).not.toContain("pi-context: context reset (")
  }, 2 * waitMs + 10_000)

  it("after /wipe-memory the status line and Pi's footer show the new window's size, the same figure, and still no notice repeats the divider", async () => {
    tmux("send-keys", "-t", "pi", "-l", "/wipe-memory")
    tmux("send-keys", "-t", "pi", "Enter")
    const text = await waitForScreen((t) => t.includes("── context reset: /wipe-memory"), "the /wipe-memory divider")
    const ours = Number(/pi-context · ~(\d+)% · w3/.exec(text)?.[1])
    // Pi's footer reads "N.N%/<window>": the ended window is out of its count too (before, it kept the ended window's figure).
    const pis = Number(/(\d+\.\d)%\/\d/.exec(text)?.[1])
    expect(Math.abs(pis - ours)).toBeLessThan(1)
    expect(text).not.toContain("pi-context: context reset (")
  }, waitMs + 10_000)
})
