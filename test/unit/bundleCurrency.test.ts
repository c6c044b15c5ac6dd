import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bundleEntry, bundleIsCurrent } from "../../src/extension.ts"

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
})
