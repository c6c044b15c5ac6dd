import { assert, describe, it } from "@effect/vitest"
import { failureDetail } from "../../src/notes/versions/git.ts"

describe("git's words in a notice", () => {
  it("keep each of git's lines a sentence of its own, so two never run together", () => {
    assert.strictEqual(
      failureDetail("fatal: unable to access 'https://example.invalid/notes.git/': Could not resolve host: example.invalid\nhint: check the URL\n", "x"),
      "fatal: unable to access 'https://example.invalid/notes.git/': Could not resolve host: example.invalid. hint: check the URL"
    )
    assert.strictEqual(failureDetail("error: first.\n\nerror: second\nerror: third\nerror: fourth", "x"), "error: first. error: second. error: third")
    assert.strictEqual(failureDetail("  ", "exited with code 128"), "exited with code 128")
  })
})
