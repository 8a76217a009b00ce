// A webhook receiver on loopback for the studio tests: keeps every delivery's JSON body, in order.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Delivery<P = Record<string, unknown>> {
  event: string
  payload: P
}

export async function startReceiver<P = Record<string, unknown>>(): Promise<{
  url: string
  events: Delivery<P>[]
  close(): void
}> {
  const events: Delivery<P>[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      events.push(JSON.parse(body) as Delivery<P>)
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return { url: `http://127.0.0.1:${port}/hook`, events, close: () => server.close() }
}
