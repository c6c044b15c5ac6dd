/**
 * `npm run demo -- --tui`: Pi's own TUI with pi-context loaded and the
 * scripted demo model (demo/tuiModel.ts), offline, in a throwaway home: no
 * API key, and nothing of the user's own Pi is read or written. The session
 * is Pi's in-memory one (`--no-session`), so Pi prints no "resume" command
 * that would point into the home this demo removes when Pi exits; the demo
 * prints its own closing lines instead, which run as written.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { closingLines } from "./tuiText.ts"

const repoRoot = resolve(import.meta.dirname, "..")
const home = mkdtempSync(join(tmpdir(), "pi-context-demo-"))
const project = join(home, "project")
// Pi's own temporary files (a long command's full output, say) go into the home too, and leave with it.
const temp = join(home, "tmp")
for (const dir of [project, temp]) mkdirSync(dir, { recursive: true })
const cli = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js")

const child = spawn(process.execPath, [cli, "--no-session", "-e", repoRoot, "-e", join(repoRoot, "demo", "tuiModel.ts")], {
  cwd: project,
  stdio: "inherit",
  env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, "agent"), PI_CONTEXT_NOTES_ROOT: join(home, "notes"), PI_OFFLINE: "1", TMPDIR: temp }
})
// Pi owns the terminal: a Ctrl+C reaches it as a key. A signal sent to this process goes on to Pi, whose exit cleans up below.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void child.kill(signal))
child.on("exit", (code, signal) => {
  // Pi has exited, so nothing writes into the home any more.
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })
  process.stdout.write(closingLines(repoRoot, process.env.INIT_CWD ?? process.cwd()))
  process.exit(code ?? (signal === null ? 0 : 1))
})
