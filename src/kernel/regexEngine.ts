import { Effect } from "effect"
import type { RegexEngine } from "./patterns.ts"

let loading: Promise<RegexEngine> | undefined

/** RE2 (re2js), imported once, on the first regex a tool is given: never on start-up's path (see `RegexEngine`). */
export const regexEngine: Effect.Effect<RegexEngine> = Effect.promise(() => (loading ??= import("re2js").then((module) => module.RE2JS)))

/** The engine when `regex` asks for one: a literal query loads nothing. */
export const engineFor = (regex: boolean | undefined): Effect.Effect<RegexEngine | undefined> => regex === true ? regexEngine : Effect.succeed(undefined)
