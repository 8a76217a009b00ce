// A bad uplink on this machine (Linux, root): a private network namespace whose loopback carries the
// test's traffic (app, local studio, Chromium all run inside it with `ip netns exec`), with an htb
// shaper on that loopback. Packets *to* the ingest's RTMP port (the upload: the direction the
// broadcaster sends media) go through a class whose rate can be set and lifted live; everything else
// (the web shell, the studio's API, HLS, the ACKs the ingest sends back, which go to the broadcaster's
// ephemeral port) goes through an unlimited class. Nothing leaves the namespace: loopback only.
//
// Choices, and why:
// - lo's MTU is 1500 and its GSO is capped at one packet (gso_max_size 1500, gso_max_segs 1): loopback
//   otherwise hands the qdisc 64 KB super-packets, which a byte-limited queue drops whole and htb
//   charges in bursts; on a real link each packet is one MTU.
// - Small packets to the RTMP port (IP length < 128: pure ACKs, e.g. of the studio's own puller, which
//   reads the stream back from the same port inside the studio) bypass the throttle: on a real uplink
//   the studio's insides are not behind your router. Media segments are full-sized while the link is
//   congested, so the leak is negligible.
// - The throttled class's leaf queue is a bfifo of QUEUE_MS worth of bytes at the set rate (at least
//   eight full packets): real routers buffer too (home routers hold ~100 ms to a few seconds), and the
//   queue is where a sender's excess waits before it is dropped. 300 ms is a middle figure; it is
//   re-sized with every rate change so it stays 300 ms at the new rate. Drops are counted (stats()).
// - Rates are htb rates on whole packets, headers included (IP, TCP, RTMP chunk headers: ~5 % above
//   the media's own bitrate).
//
// remove() is idempotent and first ends the processes still inside (by their ids: `ip netns pids`);
// every namespace made here is also removed on process exit and on SIGINT / SIGTERM, so a failing test
// or bench leaves neither a namespace nor a process behind.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'

export const QUEUE_MS = 300
const UNLIMITED = '10gbit'
const MTU = 1500

const live = new Set<Netns>()
let hooked = false
function hookExit(): void {
  if (hooked) return
  hooked = true
  process.on('exit', () => {
    for (const n of [...live]) n.remove()
  })
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      for (const n of [...live]) n.remove()
      process.kill(process.pid, sig)
    })
}

const run = (cmd: string, args: readonly string[]): string =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })

/** Why this machine cannot make namespaces (not root, no `ip` or `tc`), or undefined when it can. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux')
    return `network namespaces are Linux only (this is ${process.platform})`
  if (process.getuid?.() !== 0) return 'network namespaces need root (this process is not root)'
  for (const tool of ['ip', 'tc', 'ss'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `\`${tool}\` (iproute2) is not installed`
  return undefined
}

export interface ShaperStats {
  /** Bytes (whole packets) that left through the throttled class since it was made. */
  sentBytes: number
  /** Bytes waiting in its leaf queue now. */
  backlogBytes: number
  /** Packets its leaf queue dropped since it was made. */
  drops: number
}

export interface SocketQueue {
  /** Bytes the socket holds that the ingest has not acknowledged (not yet sent, or in flight). */
  sendQ: number
  /** What the kernel said (ss -tmi), for the report. */
  line: string
}

export class Netns {
  readonly name: string
  private port: number | undefined
  private gone = false

  private constructor(name: string) {
    this.name = name
  }

  /** A new namespace, loopback up (MTU 1500, no GSO) with the shaper in place and unlimited. */
  static create(prefix = 'onair-uplink'): Netns {
    const why = netnsUnavailable()
    if (why) throw new Error(why)
    hookExit()
    const n = new Netns(`${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`)
    run('ip', ['netns', 'add', n.name])
    live.add(n)
    try {
      n.ip('link', 'set', 'lo', 'up', 'mtu', String(MTU))
      n.ip('link', 'set', 'lo', 'gso_max_size', String(MTU), 'gso_max_segs', '1')
      n.tc('qdisc', 'add', 'dev', 'lo', 'root', 'handle', '1:', 'htb', 'default', '10')
      for (const id of ['1:10', '1:20'])
        n.tc('class', 'add', 'dev', 'lo', 'parent', '1:', 'classid', id, 'htb', 'rate', UNLIMITED)
      n.tc('qdisc', 'add', 'dev', 'lo', 'parent', '1:20', 'handle', '20:', 'bfifo', 'limit', '4mb')
    } catch (e) {
      n.remove()
      throw e
    }
    return n
  }

  private ip(...args: string[]): string {
    return run('ip', ['-n', this.name, ...args])
  }

  private tc(...args: string[]): string {
    return run('tc', ['-n', this.name, ...args])
  }

  /** `command args` run inside the namespace: the argv for spawn (children inherit the namespace). */
  exec(command: string, args: readonly string[] = []): [string, string[]] {
    return ['ip', ['netns', 'exec', this.name, command, ...args]]
  }

  /** Sends packets to `port` (TCP, IPv4) through the throttled class from now on (once). */
  shapePort(port: number): void {
    if (this.port !== undefined) throw new Error(`already shaping port ${this.port}`)
    const f = ['filter', 'add', 'dev', 'lo', 'parent', '1:', 'protocol', 'ip']
    // Small packets (IP total length < 128) to the port stay unlimited: see the head comment.
    this.tc(
      ...f,
      ...['prio', '1', 'u32', 'match', 'ip', 'protocol', '6', '0xff'],
      ...['match', 'ip', 'dport', String(port), '0xffff'],
      ...['match', 'u16', '0', '0xff80', 'at', '2', 'flowid', '1:10']
    )
    this.tc(
      ...f,
      ...['prio', '2', 'u32', 'match', 'ip', 'protocol', '6', '0xff'],
      ...['match', 'ip', 'dport', String(port), '0xffff', 'flowid', '1:20']
    )
    this.port = port
  }

  /**
   * Sends UDP packets to ports [from, to] (a block of 2^n ports starting at a multiple of 2^n, e.g.
   * 50000-50015: one u32 match) through the throttled class from now on (once; instead of shapePort).
   * Small packets (IP length < 128: STUN consent checks, RTCP feedback) stay unlimited, as for TCP.
   */
  shapeUdpPorts(from: number, to: number): void {
    if (this.port !== undefined) throw new Error(`already shaping port ${this.port}`)
    const size = to - from + 1
    if (size & (size - 1) || from % size) throw new Error(`${from}-${to} is not an aligned block`)
    const mask = `0x${(0xffff & ~(size - 1)).toString(16)}`
    const f = ['filter', 'add', 'dev', 'lo', 'parent', '1:', 'protocol', 'ip']
    const udp = [
      'u32',
      'match',
      'ip',
      'protocol',
      '17',
      '0xff',
      'match',
      'ip',
      'dport',
      String(from),
      mask
    ]
    this.tc(
      ...f,
      'prio',
      '1',
      ...udp,
      ...['match', 'u16', '0', '0xff80', 'at', '2', 'flowid', '1:10']
    )
    this.tc(...f, 'prio', '2', ...udp, 'flowid', '1:20')
    this.port = from
  }

  /**
   * An interface with `cidr` (e.g. 10.213.0.1/24; one end of a veth pair whose other end stays in
   * the namespace, so it has a carrier): a browser gathers no ICE candidate on loopback, so WebRTC
   * inside a namespace needs one; its traffic to local addresses still goes by lo.
   */
  addHostAddress(cidr: string): void {
    this.ip('link', 'add', 'onair0', 'type', 'veth', 'peer', 'name', 'onair1')
    this.ip('addr', 'add', cidr, 'dev', 'onair0')
    this.ip('link', 'set', 'onair1', 'up')
    this.ip('link', 'set', 'onair0', 'up')
  }

  /** The upload to the shaped port is limited to `kbps` (kbit/s, whole packets) from now on. */
  setRate(kbps: number): void {
    const bytesPerMs = (kbps * 1000) / 8 / 1000
    const limit = Math.max(8 * MTU, Math.round(bytesPerMs * QUEUE_MS))
    // htb's burst: one packet plus what the rate sends in 2 ms, so the shaper stays smooth.
    const burst = Math.max(2 * MTU, Math.round(bytesPerMs * 2))
    this.tc(
      ...['class', 'change', 'dev', 'lo', 'classid', '1:20', 'htb'],
      ...[
        'rate',
        `${kbps}kbit`,
        'ceil',
        `${kbps}kbit`,
        'burst',
        String(burst),
        'cburst',
        String(burst)
      ]
    )
    this.queueLimit(String(limit))
  }

  /** The throttled class's leaf queue: a bfifo of `limit` bytes (tc's sizes: "37500", "4mb"). */
  private queueLimit(limit: string): void {
    this.tc(
      'qdisc',
      'change',
      'dev',
      'lo',
      'parent',
      '1:20',
      'handle',
      '20:',
      'bfifo',
      'limit',
      limit
    )
  }

  /** No limit any more (the queue goes back to 4 MB, which a loopback drains at once). */
  lift(): void {
    this.tc('class', 'change', 'dev', 'lo', 'classid', '1:20', 'htb', 'rate', UNLIMITED)
    this.queueLimit('4mb')
  }

  stats(): ShaperStats {
    const cls = this.tc('-s', 'class', 'show', 'dev', 'lo', 'classid', '1:20')
    const q = this.tc('-s', 'qdisc', 'show', 'dev', 'lo', 'parent', '1:20')
    return {
      sentBytes: Number(/Sent (\d+) bytes/.exec(cls)?.[1] ?? NaN),
      backlogBytes: parseSize(/backlog (\S+)/.exec(q)?.[1] ?? 'NaN'),
      drops: Number(/dropped (\d+)/.exec(q)?.[1] ?? NaN)
    }
  }

  /** The sockets sending to `port` now (ss -tmi inside the namespace), with their send queues. */
  sendersTo(port: number): SocketQueue[] {
    const out = run('ss', [
      '-N',
      this.name,
      '-Htnmi',
      'state',
      'established',
      'dport',
      `= :${port}`
    ])
    const lines = out.split('\n')
    const socks: SocketQueue[] = []
    for (let i = 0; i < lines.length; i++) {
      const m = /^\s*(\d+)\s+(\d+)\s+\S+\s+\S+/.exec(lines[i]!)
      if (!m) continue
      const detail: string[] = []
      const head = lines[i]!.trim()
      while (lines[i + 1] && /^\s/.test(lines[i + 1]!)) detail.push(lines[++i]!.trim())
      socks.push({ sendQ: Number(m[2]), line: [head, ...detail].join(' ') })
    }
    return socks
  }

  /** Deletes the namespace (and with it its loopback and qdiscs); safe to call more than once. */
  remove(): void {
    if (this.gone) return
    this.gone = true
    live.delete(this)
    // Whatever still runs inside (an app, a browser left by a failure) is ours: ended by its id, or
    // it would keep the namespace alive, unnamed, after the delete.
    const pids = spawnSync('ip', ['netns', 'pids', this.name], { encoding: 'utf8' }).stdout ?? ''
    for (const pid of pids
      .split('\n')
      .map(Number)
      .filter((p) => p > 1 && p !== process.pid)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    spawnSync('ip', ['netns', 'del', this.name], { stdio: 'ignore' })
  }

  /** Whether `ip netns list` still shows it. */
  exists(): boolean {
    return run('ip', ['netns', 'list'])
      .split('\n')
      .some((l) => l.split(' ')[0] === this.name)
  }
}

/** tc's sizes: "12345b", "38Kb", "1Mb" (bytes, in 1024s). */
function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)b?$/i.exec(s)
  if (!m) return NaN
  const k = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[
    m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G'
  ]
  return Number(m[1]) * k
}
