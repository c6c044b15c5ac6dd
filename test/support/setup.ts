import { afterAll } from "vitest"
import { removeTempDirs } from "./tempDirs.ts"

// Runs after the file's own hooks (after-hooks run last-registered first), so every harness is disposed by then.
afterAll(removeTempDirs)
