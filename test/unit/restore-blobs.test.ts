import { describe, expect, it } from "vitest"
import { batchesBySize, parseBlobBatch } from "../../src/notes/versions/repo.ts"

const bytes = (...parts: Array<string | Uint8Array>) =>
  Buffer.concat(parts.map((part) => typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part)))

describe("a restore's blobs read from git", () => {
  it("cuts cat-file's output by byte size, so a note in UTF-8 or in no encoding at all comes back byte for byte", () => {
    const accented = Buffer.from("café — naïve\n", "utf8")
    const notUtf8 = Uint8Array.from([0xff, 0xfe, 0x0a, 0x80])
    const output = bytes(`aaa blob ${accented.length}\n`, accented, "\n", `bbb blob ${notUtf8.length}\n`, notUtf8, "\n", "ccc blob 0\n", "\n")
    const blobs = parseBlobBatch(output)!
    expect(Buffer.from(blobs.get("aaa")!).equals(accented)).toBe(true)
    expect(Buffer.from(blobs.get("bbb")!).equals(Buffer.from(notUtf8))).toBe(true)
    expect(blobs.get("ccc")!.length).toBe(0)
  })

  it("refuses output that is not blobs: a missing object, or one cut short", () => {
    expect(parseBlobBatch(bytes("aaa missing\n"))).toBeUndefined()
    expect(parseBlobBatch(bytes("aaa blob 10\nshort\n"))).toBeUndefined()
  })

  it("reads the notes a few megabytes a run, a larger note alone", () => {
    const sizes = [3, 3, 3, 10, 1].map((size) => ({ size }))
    expect(batchesBySize(sizes, 6).map((batch) => batch.map((entry) => entry.size))).toEqual([[3, 3], [3], [10], [1]])
  })
})
