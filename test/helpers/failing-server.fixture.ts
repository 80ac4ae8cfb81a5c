import { startServerProcess, waitForOutput } from './server-process.js'
import { migratedDataDir } from './pglite-image.js'

// A test process that starts a server and then dies: with an error (`throw`) or by the runner's SIGTERM
// (`signal`). test/platform/child-processes.test.ts checks that the server dies with it. It waits for the
// server's last start-up line (what started, after "listening"): an idle server writes nothing more, so
// the closed pipe of a dead parent would never end it.
const server = await startServerProcess({ BARSTOCK_DATA_DIR: await migratedDataDir() })
console.log(`server pid ${server.child.pid}`)
await waitForOutput(server, (output) => / serving http:/.test(output))
if (process.argv[2] === 'signal') process.kill(process.pid, 'SIGTERM')
else throw new Error('the test failed')
