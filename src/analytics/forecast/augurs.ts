import { readFileSync } from 'node:fs'
import { initSync as initEts } from '@bsull/augurs/ets'
import { initSync as initMstl } from '@bsull/augurs/mstl'

let initialised = false

/**
 * Loads augurs' WebAssembly (MSTL and AutoETS) once, synchronously; later calls do nothing. The `.wasm`
 * files are not in the package's exports map, so each is read by path beside the module that is exported.
 */
export function initForecasting(): void {
  if (initialised) return
  initMstl({ module: wasmBeside('@bsull/augurs/mstl', 'mstl_bg.wasm') })
  initEts({ module: wasmBeside('@bsull/augurs/ets', 'ets_bg.wasm') })
  initialised = true
}

function wasmBeside(specifier: string, file: string): Buffer {
  return readFileSync(new URL(file, import.meta.resolve(specifier)))
}
