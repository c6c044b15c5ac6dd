import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { normalizeAddress, parseAddress, refuseAddress } from "../../src/notes/address.ts"
import { formatAddress, parseHome } from "../../src/kernel/homes.ts"

const decode = (raw: string) => parseAddress(raw)
const addressRefusal = (raw: string) => refuseAddress(raw)?.reason

describe("note addresses", () => {
  const accepted: ReadonlyArray<readonly [string, string, string]> = [
    ["plan", "session", "plan.md"],
    ["plan.md", "session", "plan.md"],
    ["a/b", "session", "a/b.md"],
    ["@project/decisions", "project", "decisions.md"],
    ["@user/prefs.md", "user", "prefs.md"],
    ["@agent/methods/testing", "agent", "methods/testing.md"],
    ["@model/pitfalls", "model", "pitfalls.md"],
    ["notes..old", "session", "notes..old.md"],
    [".hidden", "session", ".hidden.md"],
    ["Überblick 🚀", "session", "Überblick 🚀.md"]
  ]
  for (const [raw, home, path] of accepted) {
    it(`accepts ${JSON.stringify(raw)}`, () => {
      const parsed = decode(raw)
      assert.isTrue(Result.isSuccess(parsed))
      if (Result.isSuccess(parsed)) assert.deepStrictEqual(parsed.success, { home, path } as never)
    })
  }

  const refused: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["empty", "", /empty/],
    ["parent segment", "a/../b", /"\.\."; an address cannot leave its home/],
    ["leading parent", "../x", /segment 1 is "\.\."/],
    ["parent in another home", "@project/../../user/x", /"\.\."/],
    ["dot segment", "a/./b", /segment 2 is "\."/],
    ["empty segment", "a//b", /segment 2 is empty/],
    ["trailing slash", "a/", /segment 2 is empty/],
    ["absolute", "/etc/passwd", /absolute/],
    ["drive letter", "C:/x", /absolute/],
    ["backslash", "a\\b", /backslash/],
    ["NUL", "a\u0000b", /control character U\+0000 at position 1/],
    ["newline", "a\nb", /control character U\+000A/],
    ["DEL", "a\u007f", /control character U\+007F/],
    ["unknown home", "@global/x", /unknown home "@global"/],
    ["old home name", "@self/x", /unknown home "@self"/],
    ["home without note", "@project", /names the home @project but no note/],
    ["home with slash only", "@user/", /names the home @user but no note/],
    ["too long", "a".repeat(513), /513 bytes long; the limit is 512 bytes/],
    ["too long in UTF-8", "é".repeat(257), /514 bytes long/]
  ]
  for (const [name, raw, message] of refused) {
    it(`refuses ${name}`, () => {
      const refusal = addressRefusal(raw)
      assert.isDefined(refusal)
      assert.match(refusal!, message)
      const parsed = parseAddress(raw)
      assert.isTrue(Result.isFailure(parsed))
      if (Result.isFailure(parsed)) assert.strictEqual(parsed.failure.reason, refusal)
    })
  }

  it("accepts exactly 512 bytes, in names of at most 200 bytes", () => {
    const address = `${Array.from({ length: 5 }, () => "a".repeat(100)).join("/")}/abcdefg`
    assert.strictEqual(address.length, 512)
    assert.isUndefined(addressRefusal(address))
  })

  describe("name lengths, in UTF-8 bytes with the .md the store adds", () => {
    it("accepts a note name of 200 bytes with .md, and a folder name of 200 bytes", () => {
      assert.isUndefined(addressRefusal("n".repeat(197)))
      assert.isUndefined(addressRefusal(`${"f".repeat(200)}/x`))
      assert.isUndefined(addressRefusal(`${"é".repeat(98)}.md`))
    })

    it("refuses a 240-character name with its own code, the limit and the fix", () => {
      const refusal = refuseAddress("x".repeat(240))
      assert.strictEqual(refusal?.code, "name_too_long")
      assert.include(refusal!.reason, "is 243 bytes in UTF-8 with .md")
      assert.include(refusal!.reason, "at most 200 bytes")
      assert.include(refusal!.reason, "Shorten the name, or split it into folders")
    })

    it("counts bytes, not characters, and names the folder that is too long", () => {
      assert.strictEqual(refuseAddress("n".repeat(198))?.code, "name_too_long")
      assert.strictEqual(refuseAddress("é".repeat(99))?.code, "name_too_long")
      const folder = refuseAddress(`@project/ok/${"日".repeat(67)}/note`)
      assert.strictEqual(folder?.code, "name_too_long")
      assert.include(folder!.reason, "folder name 2")
      assert.include(folder!.reason, "201 bytes")
    })
  })

  describe("Unicode", () => {
    it("normalizes to NFC: an NFD name and its NFC form are one address", () => {
      const nfd = "Cafe\u0301/U\u0308berblick"
      const nfc = "Caf\u00e9/\u00dcberblick"
      const parsed = parseAddress(nfd)
      assert.isTrue(Result.isSuccess(parsed))
      if (Result.isSuccess(parsed)) assert.strictEqual(parsed.success.path, `${nfc}.md`)
      assert.deepStrictEqual(decode(nfd), decode(nfc))
      assert.strictEqual(normalizeAddress(`@user/${nfd}`), `@user/${nfc}`)
    })

    const invisible: ReadonlyArray<readonly [string, string, RegExp]> = [
      ["a right-to-left override", "invoice\u202Etxt.md", /bidirectional control U\+202E at position 7/],
      ["a left-to-right embedding", "a\u202Ab", /bidirectional control U\+202A/],
      ["a pop directional formatting", "a\u202Cb", /bidirectional control U\+202C/],
      ["a right-to-left isolate", "a\u2067b", /bidirectional control U\+2067/],
      ["a pop directional isolate", "a\u2069b", /bidirectional control U\+2069/],
      ["a left-to-right mark", "a\u200Eb", /bidirectional control U\+200E/],
      ["a right-to-left mark", "a\u200Fb", /bidirectional control U\+200F/],
      ["a zero-width space", "pl\u200Ban", /invisible format character U\+200B at position 2/],
      ["a zero-width non-joiner", "a\u200Cb", /invisible format character U\+200C/],
      ["a zero-width joiner", "a\u200Db", /invisible format character U\+200D/],
      ["a byte-order mark", "\uFEFFplan", /invisible format character U\+FEFF at position 0/],
      ["a word joiner", "a\u2060b", /invisible format character U\+2060/],
      ["a soft hyphen", "a\u00ADb", /invisible format character U\+00AD/],
      ["an invisible tag character", "a\u{E0041}b", /invisible format character U\+E0041/],
      ["a C1 control", "a\u0085b", /control character U\+0085/],
      ["a line separator", "a\u2028b", /control character U\+2028/],
      ["an unpaired surrogate", "a\uD800b", /unpaired UTF-16 surrogate at position 1/]
    ]
    for (const [name, raw, message] of invisible) {
      it(`refuses ${name}`, () => {
        const refusal = refuseAddress(raw)
        assert.strictEqual(refusal?.code, "invalid_address")
        assert.match(refusal!.reason, message)
        assert.isTrue(Result.isFailure(decode(raw)))
      })
    }
  })

  it("formats back to the canonical address", () => {
    assert.strictEqual(formatAddress({ home: "session", path: "a/b.md" }), "a/b.md")
    assert.strictEqual(formatAddress({ home: "project", path: "x.md" }), "@project/x.md")
  })

  it("reads home names with or without @", () => {
    assert.strictEqual(parseHome("@project"), "project")
    assert.strictEqual(parseHome("user"), "user")
    assert.strictEqual(parseHome("session"), "session")
    assert.isUndefined(parseHome("@global"))
  })
})
