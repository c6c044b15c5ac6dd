import { execFile } from "node:child_process"
import { Effect } from "effect"
import { GitFailed, type GitRunner } from "../../services/NotesHistory.ts"

/** A git run longer than this is killed: a commit of a window's notes takes tens of milliseconds. */
export const GitTimeoutMs = 20_000
const MaxOutputBytes = 64 * 1024 * 1024

/**
 * Never asks anything: no terminal prompt, no editor, no pager; messages in
 * C so their text can be matched; never another repository than the one
 * found from the notes root (a `GIT_DIR` set for the user's shell would
 * redirect every command); the user's own configuration otherwise.
 */
/** Variables that would point git at another repository, index or object store than the notes root's. */
const redirecting = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_LITERAL_PATHSPECS",
  "GIT_GLOB_PATHSPECS",
  "GIT_NOGLOB_PATHSPECS",
  "GIT_ICASE_PATHSPECS"
]

const gitEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !redirecting.includes(name))),
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  GIT_PAGER: "cat",
  LC_ALL: "C",
  LANGUAGE: "C"
})

/** The system `git`, one child process per call; killed if the calling fiber is interrupted. */
export const systemGit: GitRunner = (cwd, args, stdin) =>
  Effect.callback<{ readonly stdout: string }, GitFailed>((resume) => {
    const command = args[0] ?? ""
    const child = execFile(
      "git",
      [...args],
      { cwd, env: gitEnv(), timeout: GitTimeoutMs, maxBuffer: MaxOutputBytes, encoding: "utf8", windowsHide: true },
      (error, stdout, stderr) => {
        if (error === null) return resume(Effect.succeed({ stdout }))
        const code = (error as { readonly code?: unknown }).code
        if (code === "ENOENT") return resume(Effect.fail(new GitFailed({ command, reason: "missing", detail: "git not found" })))
        const detail = (stderr.trim() || error.message).split("\n").slice(0, 3).join(" ").slice(0, 400)
        resume(Effect.fail(new GitFailed({ command, reason: "failed", detail })))
      }
    )
    if (stdin !== undefined) child.stdin?.end(stdin)
    else child.stdin?.end()
    return Effect.sync(() => void child.kill())
  })
