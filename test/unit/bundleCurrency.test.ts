import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bundleEntry, bundleIsCurrent, bundleState } from "../../src/extension.ts"

/** A package folder with a source file and package.json last changed at `sourceAt`, and a bundle built at `builtAt` (if any). */
const packageAt = (sourceAt: number, builtAt: number | undefined): string => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-bundle-"))
  mkdirSync(join(root, "src", "adapters"), { recursive: true })
  const sources = [join(root, "package.json"), join(root, "src", "main.ts"), join(root, "src", "adapters", "hooks.ts")]
  for (const file of sources) {
    writeFileSync(file, "")
    utimesSync(file, sourceAt / 1000, sourceAt / 1000)
  }
  if (builtAt !== undefined) {
    mkdirSync(join(root, "dist"))
    writeFileSync(join(root, "dist", bundleEntry), "")
    writeFileSync(join(root, "dist", "built.json"), JSON.stringify({ builtAt }))
  }
  return root
}

const withPackage = (sourceAt: number, builtAt: number | undefined, check: (root: string) => void): void => {
  const root = packageAt(sourceAt, builtAt)
  try {
    check(root)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const hour = 3_600_000
const now = Date.now()

describe("whether Pi loads the bundle (bundleIsCurrent)", () => {
  it("does when the bundle was built after the last source change", () =>
    withPackage(now - hour, now, (root) => assert.isTrue(bundleIsCurrent(root))))

  it("does for an npm tarball, where every file has one fixed time", () =>
    withPackage(now - hour, now - hour, (root) => assert.isTrue(bundleIsCurrent(root))))

  it("does not when there is no bundle (a git install without the bundler)", () =>
    withPackage(now - hour, undefined, (root) => assert.isFalse(bundleIsCurrent(root))))

  it("does not when a source file in a subfolder changed after the build", () =>
    withPackage(now - hour, now - 2 * hour, (root) => assert.isFalse(bundleIsCurrent(root))))

  it("does not when only package.json changed after the build", () =>
    withPackage(now - hour, now - hour / 2, (root) => {
      utimesSync(join(root, "package.json"), now / 1000, now / 1000)
      assert.isFalse(bundleIsCurrent(root))
    }))

  it("does not when the bundle's entry is missing though its stamp is there", () =>
    withPackage(now - hour, now, (root) => {
      rmSync(join(root, "dist", bundleEntry))
      assert.isFalse(bundleIsCurrent(root))
    }))

  it("does not when a chunk the build listed is missing, cut short or no regular file: the bundle is broken, and says which", () =>
    withPackage(now - hour, now, (root) => {
      const dist = join(root, "dist")
      writeFileSync(join(dist, "regex-abc.cjs"), "exports.x = 1\n")
      writeFileSync(join(dist, "built.json"), JSON.stringify({ builtAt: now, chunks: { [bundleEntry]: 0, "regex-abc.cjs": 14 } }))
      assert.deepStrictEqual(bundleState(root), { _tag: "Current" })
      writeFileSync(join(dist, "regex-abc.cjs"), "exports.x")
      assert.deepStrictEqual(bundleState(root), { _tag: "Broken", reason: "dist/regex-abc.cjs has 9 bytes, not the 14 it was built with" })
      rmSync(join(dist, "regex-abc.cjs"))
      assert.deepStrictEqual(bundleState(root), { _tag: "Broken", reason: "dist/regex-abc.cjs is missing" })
      execFileSync("mkfifo", [join(dist, "regex-abc.cjs")])
      assert.deepStrictEqual(bundleState(root), { _tag: "Broken", reason: "dist/regex-abc.cjs is not a regular file" })
      // A FIFO at the stamp's name is read as no stamp, never waited on.
      rmSync(join(dist, "built.json"))
      execFileSync("mkfifo", [join(dist, "built.json")])
      assert.deepStrictEqual(bundleState(root), { _tag: "Stale" })
    }))
})
