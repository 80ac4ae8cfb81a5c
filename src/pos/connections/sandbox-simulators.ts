import type { PosType, PosVendor } from '../vendors/adapter.js'
import { type RunningSimulator, startSimulatorServer } from '../simulation/simulator-server.js'

/**
 * The simulators sandbox connections talk to: one per POS type, started on loopback the first time a
 * sandbox connection of that type needs it, and kept for the life of the process. Every sandbox
 * connection of a type sees the same simulated bar (one seed).
 */
export const SANDBOX_SEED = 1

const running = new Map<PosType, Promise<RunningSimulator>>()

/** The base URL of the vendor's sandbox simulator, starting it if needed. */
export async function sandboxSimulatorUrl(vendor: PosVendor): Promise<string> {
  let simulator = running.get(vendor.posType)
  if (!simulator) {
    simulator = startSimulatorServer(vendor.createSimulator({ seed: SANDBOX_SEED }))
    running.set(vendor.posType, simulator)
    simulator.catch(() => running.delete(vendor.posType))
  }
  return (await simulator).url
}

/** Stops every sandbox simulator (app close); a later sandbox call starts them again. */
export async function closeSandboxSimulators(): Promise<void> {
  const all = [...running.values()]
  running.clear()
  await Promise.all(all.map(async (simulator) => (await simulator).close()))
}
