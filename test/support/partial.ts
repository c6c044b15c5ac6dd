/** `T` with every member optional, all the way down (functions stay as they are). */
export type DeepPartial<T> = T extends (...args: never) => unknown ? T
  : T extends object ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
  : T

/**
 * A stand-in for a Pi object that a test touches only in part (an extension
 * API, an event context). Members it does not give read as undefined, as
 * optional ones do in Pi; the type checks every member it does give.
 */
export const partialOf = <T extends object>(given: DeepPartial<T>): T => given as T
