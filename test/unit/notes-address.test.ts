import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { addressRefusal, formatAddress, NoteAddressFromString, parseAddress, parseHome } from "../../src/domain/notes/address.ts"

const decode = Schema.decodeUnknownResult(NoteAddressFromString)

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
      const viaSchema = decode(raw)
      assert.isTrue(Result.isFailure(viaSchema))
      if (Result.isFailure(viaSchema)) assert.include(viaSchema.failure.message, refusal!)
      assert.isTrue(Result.isFailure(parseAddress(raw)))
    })
  }

  it("accepts exactly 512 bytes", () => {
    assert.isUndefined(addressRefusal("a".repeat(512)))
  })

  it("formats back to the canonical address", () => {
    assert.strictEqual(formatAddress({ home: "session", path: "a/b.md" }), "a/b.md")
    assert.strictEqual(formatAddress({ home: "project", path: "x.md" }), "@project/x.md")
    assert.strictEqual(Schema.encodeSync(NoteAddressFromString)({ home: "model", path: "p.md" }), "@model/p.md")
  })

  it("reads home names with or without @", () => {
    assert.strictEqual(parseHome("@project"), "project")
    assert.strictEqual(parseHome("user"), "user")
    assert.strictEqual(parseHome("session"), "session")
    assert.isUndefined(parseHome("@global"))
  })
})
