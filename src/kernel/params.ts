import { Effect, Schema } from "effect"

/** A tool call the handler cannot carry out as given; `message` is the sentence the model reads. */
export class InvalidParams extends Schema.TaggedError<InvalidParams>()("InvalidParams", { message: Schema.String }) {}

/** Decodes a tool's parameters (absent ones as `{}`); a failure names the tool and what was wrong. */
export const decodeParams = <S extends Schema.Decoder<unknown>>(schema: S, tool: string) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (params: unknown): Effect.Effect<S["Type"], InvalidParams, S["DecodingServices"]> =>
    decode(params ?? {}).pipe(
      Effect.mapError((error) => new InvalidParams({ message: `${tool} got parameters it cannot use: ${error.message}` }))
    )
}

/** The page size a tool call asked for (or the tool's default), within 1 and the tool's maximum. */
export const pageLimit = (value: number | undefined, limits: { readonly default: number; readonly max: number }): number =>
  Math.max(1, Math.min(limits.max, value ?? limits.default))
