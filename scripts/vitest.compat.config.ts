import { join } from "node:path"
import { defineConfig, type Plugin } from "vitest/config"
import base from "../vitest.config.ts"

/**
 * The SDK tests against the Pi installed in `PI_COMPAT_ROOT` (see
 * scripts/test-compat.mjs). Every Pi import from the repository (tests and
 * src) is resolved as if it were made from that folder, exports and subpaths
 * included; Pi's own imports already resolve there, and Pi's extension loader
 * hands pi-context the same copies.
 */
const root = process.env.PI_COMPAT_ROOT
if (root === undefined) throw new Error("scripts/vitest.compat.config.ts runs under scripts/test-compat.mjs (PI_COMPAT_ROOT is unset)")

const redirected = /^(@earendil-works\/pi-(coding-agent|ai|agent-core|tui)|typebox)(\/|$)/

const fromScratch: Plugin = {
  name: "pi-context-compat-resolve",
  enforce: "pre",
  async resolveId(source, importer, options) {
    if (!redirected.test(source) || importer?.startsWith(root)) return null
    return this.resolve(source, join(root, "package.json"), { ...options, skipSelf: true })
  }
}

export default defineConfig({
  plugins: [fromScratch],
  test: {
    ...base.test,
    include: ["test/sdk/**/*.test.ts"],
    // The on-disk module cache keeps the import ids a module resolved to, and is
    // shared with `npm test`: it would hand one Pi's resolution to another run.
    fsModuleCache: false,
    setupFiles: [...(base.test?.setupFiles ?? []), "scripts/compat-setup.ts"]
  }
})
