import { assert, describe, it } from "@effect/vitest"
import { checkDigestTokens, DigestTokenRange } from "../../src/settings/digestTokens.ts"
import { resolvePolicy } from "../../src/settings/policy.ts"

describe("the digest's token setting", () => {
  const policy = (settings: Record<string, unknown>) => resolvePolicy([{ source: "global", settings: { "pi-context": settings } }], undefined)

  it("digestTokens defaults to 1,500 and is clamped to its range with one notice", () => {
    assert.strictEqual(policy({}).digestTokens.value, 1_500)
    assert.strictEqual(policy({ digestTokens: 900 }).digestTokens.value, 900)
    const low = policy({ digestTokens: 5 })
    assert.strictEqual(low.digestTokens.value, DigestTokenRange.min)
    assert.strictEqual(low.notices.length, 1)
    assert.include(low.notices[0]!.reason, "below the minimum")
    const high = policy({ digestTokens: 1e9 })
    assert.strictEqual(high.digestTokens.value, DigestTokenRange.max)
    assert.strictEqual(policy({ digestTokens: "lots" }).digestTokens.value, 1_500)
    assert.deepStrictEqual(checkDigestTokens(1_200.5), { fix: 1_200, reason: "is not a whole number of tokens" })
  })
})
