import { createServer } from 'node:net'

/** A TCP port on 127.0.0.1 that nothing listens on now (the OS picks it), for a process a test or bench starts. */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}
