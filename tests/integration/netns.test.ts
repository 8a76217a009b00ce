// The bad-uplink helper (helpers/netns.ts), checked like iperf: two Node sockets inside the namespace
// send as fast as they can, one to the shaped port and one to another port; the shaped one gets about
// the set rate, the other far more; lifting the limit frees the shaped port; removing the namespace
// leaves nothing in `ip netns list`. Skips (saying why) only where namespaces cannot be made.
import { execFileSync, spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Netns, netnsUnavailable } from '../helpers/netns'

const why = netnsUnavailable()
const SECONDS = 2

/** Runs in the namespace: for each port, a server and a client blasting at it; prints kbit/s each. */
const BLAST = `
const net = require('node:net')
const [seconds, ...ports] = process.argv.slice(1).map(Number)
const chunk = Buffer.alloc(64 * 1024)
Promise.all(ports.map((port) => new Promise((done) => {
  let bytes = 0
  let t0 = 0
  const server = net.createServer((s) => s.on('data', (d) => {
    if (!t0) t0 = Date.now()
    bytes += d.length
  })).listen(port, '127.0.0.1', () => {
    const c = net.connect(port, '127.0.0.1')
    const end = Date.now() + seconds * 1000
    const pump = () => { while (Date.now() < end) if (!c.write(chunk)) return c.once('drain', pump); c.destroy(); setTimeout(() => { server.close(); done({ port, kbps: (bytes * 8) / (Date.now() - t0) }) }, 50) }
    c.on('connect', pump)
  })
}))).then((r) => console.log(JSON.stringify(r)))
`

function blast(ns: Netns, ports: number[]): Promise<Record<number, number>> {
  const [cmd, args] = ns.exec(process.execPath, [
    '-e',
    BLAST,
    String(SECONDS),
    ...ports.map(String)
  ])
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => (out += d))
    p.stderr.on('data', (d: Buffer) => (err += d))
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`blast exited ${code}: ${err}`))
      const rows = JSON.parse(out) as { port: number; kbps: number }[]
      resolve(Object.fromEntries(rows.map((r) => [r.port, r.kbps])))
    })
  })
}

describe.skipIf(why)(
  `a throttled uplink in a network namespace${why ? ` (skipped: ${why})` : ''}`,
  () => {
    it('gives the shaped port about the set rate, other ports all they can take, and cleans up', async () => {
      const ns = Netns.create('onair-nstest')
      try {
        expect(ns.exists()).toBe(true)
        ns.shapePort(19350)
        ns.setRate(2000)
        const limited = await blast(ns, [19350, 19351])
        console.log(
          `netns: shaped port ${Math.round(limited[19350]!)} kbit/s (set 2000), other ${Math.round(limited[19351]!)} kbit/s`
        )
        // The sockets count payload; the shaper counts whole packets (~3 % more at MTU 1500).
        expect(limited[19350]).toBeGreaterThan(2000 * 0.75)
        expect(limited[19350]).toBeLessThan(2000 * 1.1)
        expect(limited[19351]).toBeGreaterThan(2000 * 20)
        const s = ns.stats()
        expect(s.sentBytes).toBeGreaterThan((2000 * 1000 * SECONDS * 0.7) / 8)

        ns.lift()
        const lifted = await blast(ns, [19350])
        expect(lifted[19350]).toBeGreaterThan(2000 * 20)
      } finally {
        ns.remove()
      }
      expect(ns.exists()).toBe(false)
    })

    it('is removed when the process exits without calling remove() (a failure half-way)', async () => {
      // A child makes a namespace and dies on an error before any clean-up of its own: the exit hook
      // removes the namespace.
      const helper = resolve(__dirname, '../helpers/netns.ts')
      const script =
        `const { Netns } = require(${JSON.stringify(helper)}); const n = Netns.create('onair-nsfail'); ` +
        `console.log(n.name); throw new Error('provoked failure')`
      const p = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let out = ''
      p.stdout.on('data', (d: Buffer) => (out += d))
      const code = await new Promise<number | null>((r) => p.on('exit', r))
      const name = out.trim()
      expect(code).not.toBe(0)
      expect(name).toMatch(/^onair-nsfail-/)
      expect(execFileSync('ip', ['netns', 'list']).toString()).not.toContain(name)
    })
  }
)
