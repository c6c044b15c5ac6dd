import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { closingLines, tryHint } from "../../demo/tuiText.ts"
import { repoRoot } from "./fixtures/piCli.ts"

/**
 * The quick start's demos as the README gives them, `npm run demo` and
 * `npm run demo -- --tui`, each with a temp HOME and its own TMPDIR, offline:
 * they run, and they leave nothing in the temp folder they were given.
 */
const waitMs = 45_000
// Each of these runs Pi more than once, on two cores shared with the rest of the suite.
const testMs = 180_000
/** One command of the quick start, at most. */
const runMs = 120_000

describe("the quick start's demos", () => {
  let root: string
  afterEach(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }))

  const dirsIn = () => {
    root = mkdtempSync(join(tmpdir(), "pi-context-demo-test-"))
    const dirs = { home: join(root, "home"), tmp: join(root, "tmp") }
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true })
    return dirs
  }
  /** What is left in the temp folder, but for the caches every Pi run shares and reuses: its TypeScript loader's and Node's compile cache (Pi's CLI turns it on). */
  const leftIn = (dir: string) => readdirSync(dir).filter((name) => name !== "jiti" && name !== "node-compile-cache")
  /** A machine with no global pi and no key: PATH without the checkout's bins, a temp HOME, offline. */
  const env = (dirs: { readonly home: string; readonly tmp: string }): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH!.split(":").filter((dir) => !dir.startsWith(repoRoot)).join(":"),
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    PI_OFFLINE: "1",
    NO_COLOR: "1"
  })

  it("`npm run demo` shows a reset on the offline model, then removes its temp folder, the last window's trace included", () => {
    const dirs = dirsIn()
    const run = spawnSync("npm", ["run", "demo"], { cwd: repoRoot, env: env(dirs), encoding: "utf8", timeout: runMs })
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain("── reset boundary → window 2")
    expect(run.stdout).toContain("pi-context: context reset (the model called wipe_memory)")
    // Nothing is left behind, and nothing is written after the demo removed its folder (the notes commit ran before).
    expect(leftIn(dirs.tmp)).toEqual([])
    execFileSync("sleep", ["2"])
    expect(leftIn(dirs.tmp)).toEqual([])
  }, testMs)

  it("`npm run demo -- --tui` shows its hint in Pi's TUI, and at /quit prints closing lines that run as written and removes its temp home, Pi's own temp files included", async () => {
    const dirs = dirsIn()
    const socket = join(root, "tmux.sock")
    const session = "demo"
    const tmux = (...args: ReadonlyArray<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" })
    /** The screen, or with `history` everything the pane showed since it started. */
    const screen = (history = false) => tmux("capture-pane", "-p", "-J", "-t", session, ...(history ? ["-S", "-"] : []))
    const waitFor = async (text: string, history = false): Promise<string> => {
      const deadline = Date.now() + waitMs
      for (;;) {
        const shown = screen(history)
        if (shown.includes(text)) return shown
        if (Date.now() > deadline) throw new Error(`the screen never showed ${text} within ${waitMs} ms:\n${shown}`)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    }
    const shell = Object.entries({ ...env(dirs), TERM: "xterm-256color" }).map(([key, value]) => `${key}='${value}'`).join(" ")
    execFileSync("tmux", ["-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "140", "-y", "45", "-c", repoRoot, `env -i ${shell} npm run demo -- --tui; echo DEMO-EXIT-$?; sleep 60`])
    try {
      // The hint is in the TUI, above the editor, once Pi has started (not printed before it and wiped).
      const started = await waitFor("pi-context · ")
      expect(started).toContain(tryHint[0])
      expect(leftIn(dirs.tmp).filter((name) => name.startsWith("pi-context-demo-"))).toHaveLength(1)
      tmux("send-keys", "-t", session, "-l", "note the demo")
      tmux("send-keys", "-t", session, "Enter")
      const noted = await waitFor("Created plan.md")
      // Still there after a turn.
      expect(noted).toContain(tryHint[0])
      // Two long outputs fill the window past its lines: the model checkpoints and wipes, answers no reminder as if the user had
      // said it, and goes on from its notes; Pi's files of the commands' full output go into the demo's home, not the temp folder.
      tmux("send-keys", "-t", session, "-l", "big")
      tmux("send-keys", "-t", session, "Enter")
      await waitFor("Took ")
      tmux("send-keys", "-t", session, "-l", "big")
      tmux("send-keys", "-t", session, "Enter")
      const filled = await waitFor("── context reset: the model called wipe_memory", true)
      expect(filled).not.toContain("You said: [pi-context]")
      expect(filled).toMatch(/Full output: \S*pi-context-demo-\w+\/tmp\/pi-bash-/)
      await waitFor("A fresh window: I resume from my notes")
      tmux("send-keys", "-t", session, "-l", "/quit")
      tmux("send-keys", "-t", session, "Enter")
      const ended = await waitFor("DEMO-EXIT-0")
      // Pi's own "pi --session <id>" would point into the removed home: the session is in memory, and the demo says what runs.
      expect(ended).not.toContain("To resume this session")
      expect(ended).toContain("pi-context demo over")
      expect(ended).toContain("again:               npm run demo -- --tui")
      expect(ended).toContain("in your own Pi:      npx pi install \"$PWD\"")
      expect(leftIn(dirs.tmp)).toEqual([])
    } finally {
      // Everything the pane started (npm, the demo, Pi) ends before the temp folders go: npm writes its log as it is hung up.
      const paneSession = tmux("display-message", "-p", "-t", session, "#{pane_pid}").trim()
      tmux("kill-server")
      const inSession = () => spawnSync("ps", ["-o", "pid=", "-s", paneSession], { encoding: "utf8" }).stdout.trim() !== ""
      const deadline = Date.now() + 10_000
      while (inSession() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }, testMs)

  it("the README's quick start runs as written on a machine with no global pi: the demo, then `npx pi install \"$PWD\"` into a temp HOME", () => {
    const dirs = dirsIn()
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
    const start = readme.slice(readme.indexOf("## Quick start"))
    const block = /```sh\n([\s\S]*?)```/.exec(start)![1]!
    const commands = block.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter((line) => line !== "")
    // The clone needs the repository's address, `npm ci` the registry (this checkout is installed), and the TUI a terminal (above).
    const run = commands.filter((command) => !command.startsWith("git clone") && command !== "npm ci" && command !== "npm run demo -- --tui")
    expect(run).toEqual(["npm run demo", "npx pi install \"$PWD\""])
    expect(spawnSync("bash", ["-c", "command -v pi"], { env: env(dirs) }).status).not.toBe(0)
    for (const command of run) {
      const result = spawnSync("bash", ["-c", command], { cwd: repoRoot, env: env(dirs), encoding: "utf8", timeout: runMs })
      expect(result.status, `${command}: ${result.stderr}`).toBe(0)
    }
    // Installed for every project, in the temp HOME's Pi: its settings list this checkout, and Pi lists it.
    const settings = JSON.parse(readFileSync(join(dirs.home, ".pi", "agent", "settings.json"), "utf8")) as { packages: ReadonlyArray<string> }
    expect(settings.packages.map((path) => resolve(dirs.home, ".pi", "agent", path))).toContain(repoRoot)
    const list = spawnSync("bash", ["-c", "npx pi list"], { cwd: repoRoot, env: env(dirs), encoding: "utf8", timeout: runMs })
    expect(list.stdout).toContain(repoRoot)
    expect(leftIn(dirs.tmp)).toEqual([])
  }, testMs)

  it("closing lines say where to run them from when the demo was started elsewhere", () => {
    expect(closingLines("/src/pi-context", "/src/pi-context")).toContain("  again:               npm run demo -- --tui\n")
    expect(closingLines("/src/my pi-context", "/elsewhere")).toContain("cd '/src/my pi-context' && npx pi install \"$PWD\"")
  })
})
