/**
 * Where a CPU profile's time went, in the buckets bench/load.ts reports: each
 * sample is charged to one bucket by its stack (root to leaf). Frames from
 * pi-context's own code (src/ or the bundle in dist/) are charged by file
 * when the file is known (the source), so the start-up work shows as
 * settings, root boot, notes snapshot, git, tool collisions.
 */
import { existsSync, readFileSync } from "node:fs"
import { Session } from "node:inspector/promises"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

export interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Starts V8's sampling profiler in this process; the returned function stops it and gives the profile. */
export const startProfiling = async (): Promise<() => Promise<CpuProfile>> => {
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 100 })
  await session.post("Profiler.start")
  return async () => {
    const { profile } = await session.post("Profiler.stop")
    session.disconnect()
    return profile as unknown as CpuProfile
  }
}

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** A source map's segments, per generated line: [generated column, source index], in column order. */
const decodeMappings = (mappings: string): Array<Array<readonly [number, number]>> => {
  const lines: Array<Array<readonly [number, number]>> = []
  let source = 0
  for (const line of mappings.split(";")) {
    const segments: Array<readonly [number, number]> = []
    let column = 0
    for (const segment of line.split(",")) {
      if (segment === "") continue
      const fields: Array<number> = []
      let value = 0
      let shift = 0
      for (const char of segment) {
        const digit = base64.indexOf(char)
        value += (digit & 31) << shift
        if (digit & 32) shift += 5
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1)
          value = 0
          shift = 0
        }
      }
      column += fields[0] ?? 0
      if (fields.length > 1) {
        source += fields[1]!
        segments.push([column, source])
      }
    }
    lines.push(segments)
  }
  return lines
}

/** The source file a bundle position came from, by the bundle's source map (built beside it). */
const sourceMaps = new Map<string, { readonly sources: ReadonlyArray<string>; readonly lines: Array<Array<readonly [number, number]>> } | undefined>()
const originalFile = (path: string, line: number, column: number): string | undefined => {
  if (!sourceMaps.has(path)) {
    const mapPath = `${path}.map`
    const map = existsSync(mapPath) ? (JSON.parse(readFileSync(mapPath, "utf8")) as { sources: Array<string>; mappings: string }) : undefined
    sourceMaps.set(path, map === undefined ? undefined : { sources: map.sources, lines: decodeMappings(map.mappings) })
  }
  const map = sourceMaps.get(path)
  const segments = map?.lines[line]
  if (map === undefined || segments === undefined || segments.length === 0) return undefined
  let low = 0
  let high = segments.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (segments[mid]![0] <= column) low = mid
    else high = mid - 1
  }
  return map.sources[segments[low]![1]]
}

/** pi-context's start-up rooms, by source file. */
const startupRooms: ReadonlyArray<readonly [RegExp, string]> = [
  [/ThresholdsLive|[sS]ettings/, "start-up: settings"],
  [/BootsLive|domain\/boot/, "start-up: root boot"],
  [/NotesVersionsLive|notes\/git|notes\/repo/, "start-up: git (notes history)"],
  [/NotesStoreLive|layers\/notes\/|domain\/notes\//, "start-up: notes snapshot"],
  [/toolCollisions/, "start-up: tool-collision check"],
  [/HistoryLive|domain\/history\//, "start-up: history index"],
  [/LifecycleLive|layers\/lifecycle\//, "start-up: lifecycle"]
]

const isTypeScriptLoading = (url: string): boolean =>
  url.includes("/jiti/") || url.includes("amaro") || url.includes("internal/modules/typescript")

/** A module's top-level code: V8 names it "" at line 0. */
const isModuleBody = (frame: CallFrame): boolean => frame.functionName === "" && frame.lineNumber === 0 && frame.url !== ""

const isEffect = (url: string): boolean => url.includes("/node_modules/effect/") || url.includes("/node_modules/@effect/")

/** The bucket of one stack (root to leaf): the frame nearest the leaf that says what the work was for. */
const bucketOf = (stack: ReadonlyArray<CallFrame>, ownRoot: string): string => {
  const leaf = stack[stack.length - 1]
  if (leaf === undefined) return "other"
  if (leaf.functionName === "(idle)") return idleBucket
  if (leaf.functionName === "(garbage collector)") return "garbage collection"
  if (leaf.functionName === "(program)") return "V8 (program)"
  /** The frame's file under the repository (a bundle frame: its source file, by the source map), or undefined. */
  const ownFile = (frame: CallFrame): string | undefined => {
    const path = frame.url.replace(/^file:\/\//, "")
    if (!path.startsWith(ownRoot)) return undefined
    const local = path.slice(ownRoot.length)
    if (!local.startsWith("src/") && !local.startsWith("dist/")) return undefined
    if (!local.startsWith("dist/")) return local.includes("node_modules/") ? undefined : local
    const source = originalFile(path, frame.lineNumber, frame.columnNumber)
    if (source === undefined) return local
    const inRepo = source.replace(/^(\.\.\/)+/, "")
    return inRepo.includes("node_modules/") ? `bundled:${inRepo.slice(inRepo.lastIndexOf("node_modules/") + 13)}` : inRepo
  }
  let sawEffect = false
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i]!
    if (isTypeScriptLoading(frame.url)) return "TypeScript loading (Pi's jiti loader)"
    if (frame.url.startsWith("node:internal/modules/")) return "module resolve, compile and link"
    if (isModuleBody(frame)) {
      if (isEffect(frame.url)) return "Effect's module evaluation"
      if (ownFile(frame) !== undefined) return "pi-context's module evaluation"
      return "other modules' evaluation"
    }
    const file = ownFile(frame)
    if (file?.startsWith("bundled:") === true) {
      if (isEffect(`/node_modules/${file.slice(8)}`)) sawEffect = true
      continue
    }
    if (file !== undefined) {
      if (frame.functionName === "makeRuntimeHost") return "building the runtime"
      for (const [pattern, name] of startupRooms) if (pattern.test(file)) return name
      if (file.startsWith("dist/")) return "pi-context (bundle, no source map)"
      if (sawEffect) return "Effect runtime (running pi-context's effects)"
      return process.env.SPLIT_DETAIL ? `pi-context: other (${file} ${frame.functionName})` : "pi-context: other"
    }
    if (isEffect(frame.url)) sawEffect = true
  }
  return sawEffect ? "Effect runtime" : "Pi, faux model, Node"
}

/** The event loop waiting (file I/O, timers, child processes): not CPU time, but the prompt waits through it too. */
export const idleBucket = "waiting: event loop idle (file I/O, timers, processes)"

/** Milliseconds per bucket, the idle time as `idleBucket`. */
/** `ownRoot`: the repository folder with its trailing slash; its src/ and dist/ files are pi-context's. */
export const splitProfile = (profile: CpuProfile, ownRoot: string): Map<string, number> => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const stacks = new Map<number, string>()
  const bucketOfNode = (id: number): string => {
    const known = stacks.get(id)
    if (known !== undefined) return known
    const stack: Array<CallFrame> = []
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.unshift(byId.get(at)!.callFrame)
    const bucket = bucketOf(stack, ownRoot)
    stacks.set(id, bucket)
    return bucket
  }
  const totals = new Map<string, number>()
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    const bucket = bucketOfNode(profile.samples[i]!)
    totals.set(bucket, (totals.get(bucket) ?? 0) + ms)
  }
  return totals
}
