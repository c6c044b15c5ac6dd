import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Effect, FileSystem, Layer, Path } from "effect"

/** Node's file system and paths, for the layers that read and write files. */
export const layer = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** Runs a file-system effect on the file system and paths a layer captured when it was built (for forked work and seams). */
export const withPlatform = (fs: FileSystem.FileSystem, path: Path.Path) => <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>): Effect.Effect<A, E> =>
  effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))
