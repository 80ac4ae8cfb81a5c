import net from 'node:net'

/** A TCP proxy on 127.0.0.1 that can stop forwarding without closing anything: a network partition. */
export interface FreezingProxy {
  port: number
  /** Stops forwarding on every connection, open and new, in both directions; nothing is closed or refused. */
  freeze(): void
  /** Forwards again what waited, and what closed meanwhile closes now, as when a partition heals. */
  thaw(): void
  /**
   * Freezes the connections open now for good while new ones are forwarded: a failover that left the
   * old server's connections open and silent.
   */
  strandOpenConnections(): void
  close(): Promise<void>
}

/**
 * Starts a proxy to `target`. While frozen every socket is paused: bytes wait in the kernel's buffers and
 * a peer's end or reset is read only after the thaw, so each side sees a silent network, not a failure.
 */
export async function startFreezingProxy(target: { host: string; port: number }): Promise<FreezingProxy> {
  const sockets = new Set<net.Socket>()
  const stranded = new Set<net.Socket>()
  let frozen = false
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    // A reset or a refused upstream ends the pair (the peer's 'close' handler destroys the other side).
    socket.on('error', () => socket.destroy())
    if (frozen) socket.pause()
  }
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk) => {
      if (to.write(chunk)) return
      from.pause()
      to.once('drain', () => {
        if (!frozen && !stranded.has(from)) from.resume()
      })
    })
    from.on('end', () => to.end())
    from.on('close', () => to.destroy())
  }
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    forward(client, upstream)
    forward(upstream, client)
    track(client)
    track(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      frozen = true
      sockets.forEach((socket) => socket.pause())
    },
    thaw() {
      frozen = false
      sockets.forEach((socket) => socket.resume())
    },
    strandOpenConnections() {
      for (const socket of sockets) {
        socket.pause()
        stranded.add(socket)
      }
      sockets.clear()
    },
    async close() {
      for (const socket of [...sockets, ...stranded]) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
