import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, posix } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

const src = sourceFiles("src")
// The eval harness (eval/) and the demos (demo/) may import Pi freely; they are held to the same import resolution and file sizes as the tests.
const tests = [...sourceFiles("test"), ...sourceFiles("eval"), ...sourceFiles("demo")]
const text = new Map([...src, ...tests].map((file) => [file, readFileSync(join(root, file), "utf8")]))

/** Every module a file names: static imports and re-exports (type-only too), and dynamic imports. */
const specifiers = (file: string): ReadonlyArray<string> =>
  [...text.get(file)!.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)]
    .map((match) => match[1] ?? match[2]!)

/** The source files a file imports, as paths from the repository root. */
const localImports = (file: string): ReadonlyArray<string> =>
  specifiers(file).filter((spec) => spec.startsWith(".")).map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)))

const isPi = (spec: string) => spec.startsWith("@earendil-works/")

/** The only files that may name a Pi package: the host door (src/pi/: the adapters and the PiSession port's live layer) and the entry. */
const mayImportPi = (file: string) => file.startsWith("src/pi/") || file === "src/main.ts" || file === "src/extension.ts"

/** Every import from a file matching `from` of a file matching `to`, as `file -> dependency`. */
const importsFromTo = (from: (file: string) => boolean, to: (file: string) => boolean): ReadonlyArray<string> =>
  src.filter(from).flatMap((file) => localImports(file).filter(to).map((dep) => `${file} -> ${dep}`))

const under = (folder: string) => (file: string) => file.startsWith(folder)
const named = (pattern: RegExp) => (file: string) => pattern.test(posix.basename(file))
/** The feature rooms: everything under src/ but the entry, the runtime, the kernel, the host door and the command's router. */
const inFeature = (file: string) => /^src\/(?!kernel\/|pi\/|commands\/)[^/]+\//.test(file)

describe("the import graph", () => {
  it("has no cycle among the source files", () => {
    const graph = new Map(src.map((file) => [file, localImports(file).filter((dep) => text.has(dep))]))
    const state = new Map<string, "open" | "done">()
    const cycles: Array<string> = []
    const visit = (file: string, path: ReadonlyArray<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" -> "))
        return
      }
      state.set(file, "open")
      for (const dep of graph.get(file) ?? []) visit(dep, [...path, file])
      state.set(file, "done")
    }
    for (const file of src) visit(file, [])
    assert.deepStrictEqual(cycles, [])
  })

  it("has no cycle among the rooms: drawn by folder, each room stands only on rooms below it", () => {
    // A file at the top of src/ (the entry, main.ts, the runtime) is a room of its own.
    const roomOf = (file: string) => (posix.dirname(file) === "src" ? file : posix.dirname(file))
    const arrows = new Map<string, Set<string>>()
    for (const file of src) {
      for (const dep of localImports(file).filter((dep) => text.has(dep) && roomOf(dep) !== roomOf(file))) {
        if (!arrows.has(roomOf(file))) arrows.set(roomOf(file), new Set())
        arrows.get(roomOf(file))!.add(roomOf(dep))
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...arrows.get(from) ?? []].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))))
    const circles = [...arrows].flatMap(([room, deps]) => [...deps].filter((dep) => reaches(dep, room)).map((dep) => `${room} -> ${dep}`))
    assert.deepStrictEqual(circles, [])
    // The rooms it checks are the features: the window, reset and notes rooms stand on the kernel.
    for (const room of ["src/window", "src/reset", "src/notes", "src/notes/versions"]) assert.isTrue(arrows.get(room)?.has("src/kernel"), room)
  })

  it("names Pi packages only in the host door (src/pi/), main.ts and extension.ts", () => {
    const offenders = src.filter((file) => !mayImportPi(file) && specifiers(file).some(isPi))
    assert.deepStrictEqual(offenders, [])
  })

  it("has the kernel import nothing but the kernel: it is the ground floor every room stands on", () => {
    assert.deepStrictEqual(importsFromTo(under("src/kernel/"), (dep) => !dep.startsWith("src/kernel/")), [])
  })

  it("has no feature import the host door or the command's router: what Pi's views need, the door hands in", () => {
    assert.deepStrictEqual(importsFromTo(inFeature, (dep) => dep.startsWith("src/pi/") || dep.startsWith("src/commands/")), [])
  })

  it("has no live layer import a tool handler or a command", () => {
    assert.deepStrictEqual(importsFromTo(named(/Live\.ts$/), named(/(Handlers|Command)\.ts$/)), [])
  })

  it("has no tool handler or command import a live layer: they reach the disk and Pi through services", () => {
    assert.deepStrictEqual(importsFromTo(named(/(Handlers|Command)\.ts$/), named(/Live\.ts$/)), [])
  })

  it("loads no Effect at extension load: main.ts's static imports never reach the effect package", () => {
    // Effect loads on first use (a dynamic import in main.ts), so Pi's start-up does not pay for it;
    // one static chain to a module importing effect cost about 90 ms of load (bench/load.ts).
    const staticValueImports = (file: string): ReadonlyArray<string> =>
      [...text.get(file)!.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^"'`;]*?\bfrom\s*["']([^"']+)["']/g)].map((match) => match[1]!)
    const seen = new Map<string, string | undefined>([["src/main.ts", undefined]])
    const queue = ["src/main.ts"]
    const offenders: Array<string> = []
    while (queue.length > 0) {
      const file = queue.shift()!
      for (const spec of staticValueImports(file)) {
        if (spec === "effect" || spec.startsWith("effect/") || spec.startsWith("@effect/")) {
          const chain = [file]
          for (let at = seen.get(file); at !== undefined; at = seen.get(at)) chain.push(at)
          offenders.push(`${spec} <- ${chain.join(" <- ")}`)
        }
        if (!spec.startsWith(".")) continue
        const dep = posix.normalize(posix.join(posix.dirname(file), spec))
        if (text.has(dep) && !seen.has(dep)) {
          seen.set(dep, file)
          queue.push(dep)
        }
      }
    }
    assert.deepStrictEqual(offenders, [])
  })

  it("resolves every relative import to a file in the tree", () => {
    const unresolved = [...src, ...tests].flatMap((file) =>
      localImports(file).filter((dep) => dep.endsWith(".ts") && !text.has(dep)).map((dep) => `${file} -> ${dep}`)
    )
    assert.deepStrictEqual(unresolved, [])
  })
})

describe("the Window room", () => {
  /** The one reader of the branch's window structure: window/walk.ts walks it, the service and its layer expose it. */
  const inWindowRoom = (file: string) => file.startsWith("src/window/")

  /**
   * Ways to read reset markers, each with the files outside the room that
   * may: entries.ts defines the marker's shape and decodes it (classifyEntry),
   * boundary.ts writes it, the renderer draws its chat entry, protocol.ts names
   * its type. Judging a window's tail (its marker, then its own boot) is the
   * room's own (window/tail.ts), for the projection and start-up's repair.
   */
  const markerReads: ReadonlyArray<{ readonly what: string; readonly pattern: RegExp; readonly allowed: ReadonlyArray<string> }> = [
    { what: "isMarkerEntry", pattern: /\bisMarkerEntry\b/, allowed: ["src/kernel/entries.ts"] },
    { what: "the marker decoder's schema", pattern: /\bResetMarkerData\b/, allowed: ["src/kernel/entries.ts"] },
    { what: "a walk back from the leaf (branchTail)", pattern: /\.branchTail\(/, allowed: [] },
    { what: "the marker's custom type", pattern: /CustomType\.resetMarker\b|["']pi-context\/reset-marker["']/, allowed: ["src/kernel/entries.ts", "src/reset/boundary.ts", "src/pi/renderers.ts", "src/kernel/protocol.ts"] },
    { what: "a classified marker", pattern: /_tag\s*[!=]==\s*["']Marker["']|_tag: "Marker" \}>/, allowed: [] }
  ]

  it("is the only reader of reset markers: nothing else walks the branch for them or decodes them", () => {
    const offenders = src.filter((file) => !inWindowRoom(file)).flatMap((file) =>
      markerReads.filter(({ pattern, allowed }) => !allowed.includes(file) && pattern.test(text.get(file)!)).map(({ what }) => `${file}: ${what}`)
    )
    assert.deepStrictEqual(offenders, [])
    // The patterns match real code: the room itself tells markers apart and walks back from the leaf.
    for (const { pattern } of [markerReads[0]!, markerReads[2]!]) assert.isTrue(src.filter(inWindowRoom).some((file) => pattern.test(text.get(file)!)), String(pattern))
  })
})

describe("the notes' door", () => {
  /** A notes module that reaches the disk, git or a lock file itself. */
  const touchesRoot = (file: string) => /from "node:fs|\bFileSystem\b|\/(?:lockFile|disk|git)\.ts"/.test(text.get(file)!)
  const inNotes = under("src/notes/")

  it("is their services: outside src/notes/, nothing imports a notes module that touches the disk, git or a lock (their layers aside, which are composed)", () => {
    const offenders = importsFromTo((file) => !inNotes(file), (dep) => inNotes(dep) && !named(/Live\.ts$/)(dep) && touchesRoot(dep))
    assert.deepStrictEqual(offenders, [])
    // The rule has something to keep behind the door: the disk, the locks, the store's layer.
    for (const file of ["src/notes/disk.ts", "src/notes/lockFile.ts", "src/notes/NotesStoreLive.ts"]) assert.isTrue(touchesRoot(file), file)
  })
})

describe("the branch's one model", () => {
  /** Where the branch may be read whole or walked: the Window room, the PiSession port that reads Pi for it. */
  const mayReadBranch = (file: string) =>
    file.startsWith("src/window/") ||
    file === "src/pi/PiSessionLive.ts" || file === "src/kernel/PiSession.ts"
  // The port's branch reads, and Pi's own. (The tidy adapter reads the branch of its own nested session, not the user's.)
  const branchRead = /\.rawBranch\b|\.rawBranchAt\(|\.branchTail\(|\bsession\.branch\b|\(yield\* PiSession\)\.branch\b|\.getBranch\(/

  it("has no room but Window read the branch: whether it has a reset, what was last set on or off, its unreadable entries come from Window", () => {
    const offenders = src.filter((file) => !mayReadBranch(file) && file !== "src/pi/tidySession.ts" && branchRead.test(text.get(file)!))
    assert.deepStrictEqual(offenders, [])
    assert.isTrue(branchRead.test(text.get("src/window/WindowLive.ts")!))
  })
})

describe("file sizes", () => {
  it("keeps every source and test file at 400 lines or fewer", () => {
    const long = [...src, ...tests]
      .map((file) => ({ file, lines: text.get(file)!.split("\n").length - (text.get(file)!.endsWith("\n") ? 1 : 0) }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines} lines`)
    assert.deepStrictEqual(long, [])
  })
})

it("reads the tree it checks", () => {
  assert.isTrue(src.includes("src/main.ts") && src.includes("src/pi/PiSessionLive.ts"))
  assert.isTrue(specifiers("src/main.ts").some(isPi))
})
