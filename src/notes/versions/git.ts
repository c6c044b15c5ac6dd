import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { devNull } from "node:os"
import { Effect } from "effect"
import { GitFailed, type GitRunner } from "./NotesVersions.ts"

/** A git run longer than this is ended, with every process it started: a commit of a window's notes takes tens of milliseconds. */
export const GitTimeoutMs = 20_000
const MaxOutputBytes = 64 * 1024 * 1024

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

/**
 * Never asks anything: no terminal prompt, no editor, no pager; messages in
 * C so their text can be matched; never another repository than the one
 * found from the notes root (a `GIT_DIR` set for the user's shell would
 * redirect every command); the user's own configuration otherwise.
 */
const gitEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !redirecting.includes(name))),
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  GIT_PAGER: "cat",
  LC_ALL: "C",
  LANGUAGE: "C"
})

/**
 * The user's hooks (a `prepare-commit-msg` that asks or hangs) and file
 * system monitor are theirs, not pi-context's: its own git runs find no hook
 * (a hooks folder that cannot exist) and scan the work tree themselves.
 */
const OwnRunConfig: ReadonlyArray<string> = ["-c", `core.hooksPath=${devNull}`, "-c", "core.fsmonitor=false"]

/** Ends the child and every process it started (a hook's own children): it leads a process group of its own. */
const endGroup = (pid: number | undefined, fallback: () => void): void => {
  if (pid === undefined) return
  if (process.platform === "win32") return fallback()
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    fallback()
  }
}

/** The detail of a failed run: git's own first lines, or what stopped it. */
/** Each of git's first lines as a sentence of its own: "fatal: x" and "hint: y" must not run together as "fatal: x hint: y". */
export const failureDetail = (stderr: string, fallback: string): string =>
  (stderr.trim() || fallback).split("\n").map((line) => line.trim()).filter((line) => line !== "").slice(0, 3)
    .map((line, index, lines) => (index < lines.length - 1 && !/[.!?:;]$/.test(line) ? `${line}.` : line)).join(" ").slice(0, 400)

/**
 * The system `git`, one child process (group) per call, with the user's
 * hooks and file system monitor off; ended with everything it started at
 * `timeoutMs`, or when the calling fiber is interrupted.
 */
export const gitWithin = (timeoutMs: number): GitRunner => (cwd, args, stdin) =>
  Effect.callback<{ readonly stdout: string }, GitFailed>((resumeOnce) => {
    const command = args[0] ?? ""
    // A child that fails to start reports `error` and may still report `close`: the first one answers.
    let answered = false
    const resume = (answer: Effect.Effect<{ readonly stdout: string }, GitFailed>) => {
      if (answered) return
      answered = true
      resumeOnce(answer)
    }
    const child = spawn("git", [...OwnRunConfig, ...args], { cwd, env: gitEnv(), detached: true, windowsHide: true, stdio: ["pipe", "pipe", "pipe"] })
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    let bytes = 0
    let stopped: string | undefined
    const stop = (why: string) => {
      if (stopped !== undefined) return
      stopped = why
      endGroup(child.pid, () => void child.kill("SIGKILL"))
    }
    const timer = setTimeout(() => stop(`timed out after ${timeoutMs / 1000} s and was stopped`), timeoutMs)
    const collect = (into: Array<Buffer>) => (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > MaxOutputBytes) return stop(`printed more than ${MaxOutputBytes / 1024 / 1024} MB and was stopped`)
      into.push(chunk)
    }
    child.stdout.on("data", collect(stdout))
    child.stderr.on("data", collect(stderr))
    child.stdin.on("error", () => {})
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      resume(Effect.fail(
        // Node says ENOENT both for a missing git and for a working folder that is gone (a mirror deleted mid-round).
        error.code === "ENOENT" && !existsSync(cwd)
          ? new GitFailed({ command, reason: "failed", detail: `its working folder ${cwd} is gone` })
          : error.code === "ENOENT"
          ? new GitFailed({ command, reason: "missing", detail: "git not found" })
          : new GitFailed({ command, reason: "failed", detail: failureDetail("", error.message) })
      ))
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      const errorText = Buffer.concat(stderr).toString("utf8")
      if (stopped !== undefined) return resume(Effect.fail(new GitFailed({ command, reason: "failed", detail: stopped })))
      if (code === 0) return resume(Effect.succeed({ stdout: Buffer.concat(stdout).toString("utf8") }))
      resume(Effect.fail(new GitFailed({ command, reason: "failed", detail: failureDetail(errorText, `exited with ${signal ?? `code ${code}`}`) })))
    })
    child.stdin.end(stdin ?? "")
    return Effect.sync(() => {
      clearTimeout(timer)
      stop("was interrupted")
    })
  })

/** The system `git` at the history's budget. */
export const systemGit: GitRunner = gitWithin(GitTimeoutMs)
