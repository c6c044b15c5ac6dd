import { VERSION } from "@earendil-works/pi-coding-agent"

// The compat run is only evidence if the Pi under test is the one asked for.
const expected = process.env.PI_COMPAT_VERSION
if (expected !== undefined && VERSION !== expected) {
  throw new Error(`test:compat asked for Pi ${expected} but loaded Pi ${VERSION}: the scratch install is not being used`)
}
console.log(`[compat] running on Pi ${VERSION}`)
