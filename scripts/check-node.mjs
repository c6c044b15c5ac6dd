// Fails fast when npm scripts run on a Node older than Pi 1.x and vitest 5 need.
// The `node` devDependency puts Node 24 first on PATH for npm scripts; after
// `npm ci --ignore-scripts` its binary is missing and the system Node is used.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `pi-context needs Node >= 22.19 for its tests, but npm scripts are running on Node ${process.versions.node}.\n` +
      "The `node` devDependency provides it: run `npm ci` (without --ignore-scripts) so node_modules/.bin/node exists."
  )
  process.exit(1)
}
