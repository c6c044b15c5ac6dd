/**
 * `npm run demo -- --tui`: Pi's own TUI with pi-context loaded and the
 * scripted demo model (demo/tuiModel.ts), offline, in a throwaway home: no
 * API key, and nothing of the user's own Pi is read or written.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const repoRoot = resolve(import.meta.dirname, "..")
const home = mkdtempSync(join(tmpdir(), "pi-context-demo-"))
const project = join(home, "project")
mkdirSync(project, { recursive: true })
const cli = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js")

console.log(`pi-context demo in Pi's TUI (offline model; notes and sessions under ${home}).`)
console.log("Try: note <text> · remember <text> · big (fills the window) · wipe · /wipe-memory · /pi-context status · /pi-context windows")
const child = spawn(process.execPath, [cli, "-e", repoRoot, "-e", join(repoRoot, "demo", "tuiModel.ts")], {
  cwd: project,
  stdio: "inherit",
  env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, "agent"), PI_CONTEXT_NOTES_ROOT: join(home, "notes"), PI_OFFLINE: "1" }
})
child.on("exit", (code) => process.exit(code ?? 0))
