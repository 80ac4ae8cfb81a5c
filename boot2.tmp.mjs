import { PGlite } from '@electric-sql/pglite'
import { openPglite } from '/work/main/dist/src/platform/db/connect.js'
import { migrate } from '/work/main/dist/src/platform/db/migrate.js'
let t=Date.now()
const h = await openPglite()
await migrate(h)
console.log('open+migrate', Date.now()-t); t=Date.now()
const dump = await h.dumpTo ? null : null
const p0 = await PGlite.create()
console.log('plain create', Date.now()-t); t=Date.now()
const blob = await p0.dumpDataDir('none')
console.log('dump', Date.now()-t, blob.size); t=Date.now()
const p1 = await PGlite.create({ loadDataDir: blob })
console.log('create from dump', Date.now()-t); t=Date.now()
