import { spawn } from "node:child_process"
import { existsSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { devNull } from "node:os"
import { Effect } from "effect"
import { GitFailed, type GitResult, type GitRunner } from "./NotesVersions.ts"

/** A git run longer than this is ended, with every process it started: a commit of a window's notes takes tens of milliseconds. */
export const GitTimeoutMs = 20_000
/**
 * What each note a run writes or reads adds to its limit: writing a note's file or blob takes well under
 * a millisecond on a quiet disk, and nearly 3 ms on a disk other work keeps busy (20,000 notes were
 * checked out in 55 s at a load of 18 on two cores); 20,000 notes may take 100 s more than a window's few.
 */
export const GitTimeoutPerFileMs = 5
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

/**
 * The index lock a git run in `cwd` may leave when it is ended, if none was there before it ran: only
 * such a lock is ever removed (one that was there is another git's, the user's perhaps).
 */
const lockItMayLeave = (cwd: string): string | undefined => {
  const gitDir = join(cwd, ".git")
  const isFolder = (() => {
    try {
      return statSync(gitDir).isDirectory()
    } catch {
      return false
    }
  })()
  const lock = join(gitDir, "index.lock")
  return isFolder && !existsSync(lock) ? lock : undefined
}

/** Removes the lock an ended git left, when it did not exist before that git ran. */
const removeLeftLock = (lock: string | undefined): void => {
  if (lock !== undefined) rmSync(lock, { force: true })
}

/**
 * The gits running now, by the pid that leads each one's process group, with the lock each may leave.
 * They run detached (a group of their own, to be ended whole), so nothing ends them with this process:
 * when it exits, or a signal would end it, they are ended first, and their locks removed.
 */
const running = new Map<number, { readonly lock: string | undefined }>()

const endAll = (): void => {
  for (const [pid, { lock }] of running) {
    endGroup(pid, () => {})
    removeLeftLock(lock)
  }
  running.clear()
}

const endingSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const

/** While a git runs, a signal that would end this process ends the gits first, then ends it as it would have. */
const onEndingSignal = (signal: NodeJS.Signals) => {
  endAll()
  // Another listener (the host's) decides what the signal does. Alone, ours lets it do what it did without
  // us, once Node has put the signal's default action back (it does so as the last listener's handle closes).
  if (process.listenerCount(signal) > 1) return
  // This process is ending: a git started from now on no longer holds the signal back.
  signalled = true
  unwatchSignals()
  setImmediate(() => process.kill(process.pid, signal))
}

let watching = false
let signalled = false
const watchSignals = (): void => {
  if (watching || signalled) return
  watching = true
  process.on("exit", endAll)
  for (const signal of endingSignals) process.on(signal, onEndingSignal)
}
const unwatchSignals = (): void => {
  if (!watching) return
  watching = false
  process.off("exit", endAll)
  for (const signal of endingSignals) process.off(signal, onEndingSignal)
}

const started = (pid: number | undefined, lock: string | undefined): void => {
  if (pid === undefined) return
  running.set(pid, { lock })
  watchSignals()
}

const finished = (pid: number | undefined): void => {
  if (pid === undefined) return
  running.delete(pid)
  if (running.size === 0) unwatchSignals()
}

/** The detail of a failed run: git's own first lines, or what stopped it. */
/** Each of git's first lines as a sentence of its own: "fatal: x" and "hint: y" must not run together as "fatal: x hint: y". */
export const failureDetail = (stderr: string, fallback: string): string =>
  (stderr.trim() || fallback).split("\n").map((line) => line.trim()).filter((line) => line !== "").slice(0, 3)
    .map((line, index, lines) => (index < lines.length - 1 && !/[.!?:;]$/.test(line) ? `${line}.` : line)).join(" ").slice(0, 400)

/**
 * The system `git`, one child process (group) per call, with the user's
 * hooks and file system monitor off; ended with everything it started at
 * `baseTimeoutMs` (and a little more per note it is told it handles), or when the calling fiber is interrupted.
 */
export const gitWithin = (baseTimeoutMs: number): GitRunner => (cwd, args, stdin, options) =>
  Effect.callback<GitResult, GitFailed>((resumeOnce) => {
    const timeoutMs = baseTimeoutMs + GitTimeoutPerFileMs * Math.max(0, options?.files ?? 0)
    const command = args[0] ?? ""
    // A child that fails to start reports `error` and may still report `close`: the first one answers.
    let answered = false
    const resume = (answer: Effect.Effect<GitResult, GitFailed>) => {
      if (answered) return
      answered = true
      resumeOnce(answer)
    }
    const lock = lockItMayLeave(cwd)
    const child = spawn("git", [...OwnRunConfig, ...args], { cwd, env: gitEnv(), detached: true, windowsHide: true, stdio: ["pipe", "pipe", "pipe"] })
    started(child.pid, lock)
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
      finished(child.pid)
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
      finished(child.pid)
      const errorText = Buffer.concat(stderr).toString("utf8")
      if (stopped !== undefined) {
        // Ended with no chance to remove its own lock: the next commit would fail on it.
        removeLeftLock(lock)
        return resume(Effect.fail(new GitFailed({ command, reason: "failed", detail: stopped })))
      }
      if (code === 0) {
        const output = Buffer.concat(stdout)
        return resume(Effect.succeed({ stdout: output.toString("utf8"), stdoutBytes: output }))
      }
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
