import { readFile } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
const cpu = () => { const u = process.cpuUsage(); return ((u.user+u.system)/1000)|0 }
let t=Date.now(), c=cpu()
const bytes = await readFile('node_modules/@electric-sql/pglite/dist/pglite.wasm')
const mod = await WebAssembly.compile(bytes)
console.log('compile', Date.now()-t, cpu()-c); t=Date.now(); c=cpu()
const p = await PGlite.create({ wasmModule: mod })
console.log('create w/ module', Date.now()-t, cpu()-c); t=Date.now(); c=cpu()
await p.query('select 1')
const p2 = await PGlite.create({ wasmModule: mod })
console.log('second create w/ module', Date.now()-t, cpu()-c); t=Date.now(); c=cpu()
const blob = await p.dumpDataDir('none')
const p3 = await PGlite.create({ wasmModule: mod, loadDataDir: blob })
console.log('third from dump', Date.now()-t, cpu()-c); t=Date.now(); c=cpu()
