import { wrongKind } from "./checks.ts"
import { formatTokens } from "../kernel/tokenCount.ts"
import type { Check } from "./checks.ts"

/** The tokens an automatic reset's digest may take when `digestTokens` is not set. */
export const DefaultDigestTokens = 1500

/**
 * The range `pi-context.digestTokens` is clamped to: below the floor a digest
 * cannot hold even the pending request's excerpt; above the ceiling it would
 * crowd the fresh window it is meant to start.
 */
export const DigestTokenRange = { min: 200, max: 8_000, default: DefaultDigestTokens } as const

/** Validates `pi-context.digestTokens` in the shape of the thresholds' checks: a value, a fix with its reason, or a reason. */
export const checkDigestTokens: Check<number> = (value) => {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return { reason: typeof value === "number" ? "is not a number of tokens" : wrongKind(value, "a number of tokens", (text) => text !== "" && Number.isFinite(Number(text))) }
  }
  const whole = Math.floor(value)
  if (whole < DigestTokenRange.min) return { fix: DigestTokenRange.min, reason: `is below the minimum of ${formatTokens(DigestTokenRange.min)} tokens` }
  if (whole > DigestTokenRange.max) return { fix: DigestTokenRange.max, reason: `is above the maximum of ${formatTokens(DigestTokenRange.max)} tokens` }
  return whole === value ? { ok: value } : { fix: whole, reason: "is not a whole number of tokens" }
}
