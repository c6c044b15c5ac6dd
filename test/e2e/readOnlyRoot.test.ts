import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fauxPromptArgs, jsonEvents, piBin, piDirsIn, piEnv, repoRoot } from "./fixtures/piCli.ts"

/**
 * A notes root on a read-only file system, in the real `pi` CLI. As root, a
 * folder's mode does not stop a write: the root is a read-only tmpfs mounted
 * in a mount namespace of the run's own (`unshare`), so the kernel answers
 * EROFS as it does for a read-only mount, and Node's recursive mkdir ENOENT.
 * Skipped where no such namespace can be made.
 */
const fauxExtension = join(import.meta.dirname, "fixtures", "fauxReadOnlyScript.ts")

/** Runs `command` with the notes root mounted read-only, in a user and mount namespace of its own. */
const readOnlyMount = (notesRoot: string): ReadonlyArray<string> => ["-rm", "sh", "-c", 'mount -t tmpfs -o ro tmpfs "$0" && exec "$@"', notesRoot]

const scratch = mkdtempSync(join(tmpdir(), "pi-context-readonly-"))
const probe = join(scratch, "probe")
mkdirSync(probe)
const canMount = spawnSync("unshare", [...readOnlyMount(probe), "true"]).status === 0

const toolResults = (events: ReadonlyArray<Record<string, any>>) =>
  events
    .filter((event) => event.type === "tool_execution_end")
    .map((event) => ({
      isError: event.isError as boolean,
      code: event.result?.details?.code as string | undefined,
      text: (event.result?.content ?? []).map((block: { text?: string }) => block.text ?? "").join("")
    }))

describe("a read-only notes root, in the real pi CLI", () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it.skipIf(!canMount)("each notes_write gives a permanent error naming the read-only file system and saying not to retry, with no internal tag", () => {
    const dirs = piDirsIn(join(scratch, "run"))
    const args = fauxPromptArgs("write the plan", [repoRoot, fauxExtension])
    // `unshare` runs the CLI on this process's Node, with the mount in place.
    const run = spawnSync("unshare", [...readOnlyMount(dirs.notesRoot), process.execPath, piBin, ...args], {
      cwd: dirs.project,
      env: piEnv(dirs),
      encoding: "utf8",
      timeout: 45_000
    })
    expect(run.status, run.stderr).toBe(0)
    const results = toolResults(jsonEvents(run.stdout))
    expect(results).toHaveLength(2)
    for (const result of results) {
      expect(result.isError).toBe(true)
      expect(result.code).toBe("io_permanent")
      expect(result.text).toContain("the file system is read-only (EROFS)")
      expect(result.text).toContain("Retrying will not help")
      expect(result.text).not.toMatch(/try again|disappeared|ENOENT/i)
      expect(result.text).not.toMatch(/\b(io_permanent|io_error|protected):/)
    }
    expect(results[0]!.text).toMatch(/^could not create the folder of @user\/plan\.md in the @user home/)
  }, 60_000)
})
