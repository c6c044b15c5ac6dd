import { readFileSync, realpathSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { gitdirOf } from "./identity.ts"

/** The file's text, trimmed, or undefined when it cannot be read. */
const readTrimmed = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8").trim()
  } catch {
    return undefined
  }
}

/** A `.git` file points at the worktree's git dir; its `commondir` leads to the main checkout's `.git`. */
const rootFromGitFile = (dir: string): string => {
  const gitdir = gitdirOf(readTrimmed(join(dir, ".git")) ?? "")
  if (gitdir === undefined) return dir
  const gitdirAbsolute = resolve(dir, gitdir)
  const commondir = readTrimmed(join(gitdirAbsolute, "commondir"))
  // Without a commondir the .git file belongs to a submodule, a project of its own.
  return commondir === undefined ? dir : dirname(resolve(gitdirAbsolute, commondir))
}

/** What is at `path`, or undefined when nothing is or it cannot be looked at (a folder we may not enter is walked past). */
const statOrUndefined = (path: string) => {
  try {
    return statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

const realOrResolved = (cwd: string): string => {
  try {
    return realpathSync(cwd)
  } catch {
    return resolve(cwd)
  }
}

/**
 * The directory a project home is keyed on: the nearest git checkout above
 * `cwd`, the main checkout for a linked worktree, else `cwd` itself.
 * Never fails: an unreadable tree falls back to `cwd`.
 *
 * Synchronous: the root boot waits for it, and a few `stat`s of folders the
 * kernel has cached take microseconds, where each asynchronous one costs a
 * trip through libuv's thread pool (milliseconds on a busy machine).
 */
export const findProjectRoot = (cwd: string): string => {
  const start = realOrResolved(cwd)
  for (let dir = start; ; dir = dirname(dir)) {
    const dotGit = statOrUndefined(join(dir, ".git"))
    if (dotGit !== undefined) return dotGit.isFile() ? rootFromGitFile(dir) : dir
    if (dirname(dir) === dir) return start
  }
}
