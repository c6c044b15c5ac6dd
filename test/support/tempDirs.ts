import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * The temp folders a test file made: `npm test` must leave the temp folder as
 * it found it. test/support/setup.ts removes what is left after the file's
 * last test, so a folder shared by several tests (or harnesses) needs no hook
 * of its own; `removeTempDir` removes one sooner.
 */
const made = new Set<string>()

/** A fresh folder in the system's temp folder, named `<prefix>XXXXXX`, removed after the test file at the latest. */
export const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.add(dir)
  return dir
}

// The retries cover a child process (git, Pi) that still holds a file as it exits.
export const removeTempDir = (dir: string): void => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })
  made.delete(dir)
}

/** Removes every folder `tempDir` made that is still there. */
export const removeTempDirs = (): void => {
  for (const dir of [...made]) removeTempDir(dir)
}
