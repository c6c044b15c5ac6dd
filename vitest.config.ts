import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Removes the temp folders each test file made (test/support/tempDirs.ts).
    setupFiles: ["test/support/setup.ts"],
    // Every test by name, including the one that names the Node it ran on.
    reporters: ["verbose"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores here: SDK and e2e suites spawn Pi, so keep parallelism modest.
    maxWorkers: 2
  }
})
