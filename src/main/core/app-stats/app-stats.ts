// The stats view's call (#34 §6): appStats() answers the app's CPU and memory per kind of process and
// the run's numbers. The processes are read when the view asks (about once a second while it is open),
// at most once in 800 ms however many pages ask; the run's numbers are kept from the live events always.
import { cpus } from 'node:os'
import type { AppStatsView } from '../../../shared/app-stats'
import { trackedChildren } from '../../../node/process'
import type { CoreEvents } from '../events'
import { ResourceMonitor, type ResourceDeps, type ResourcesView } from './resources'
import { RunStats } from './run-stats'
import { hostSampler, type ProcessMetricLike } from './samplers'

const MIN_GAP_MS = 800

export interface AppStatsOptions {
  events: Pick<CoreEvents, 'on'>
  /** Electron's app.getAppMetrics(), passed in by the Electron shell. */
  appMetrics?: () => ProcessMetricLike[]
  /** Tests replace how processes are read. */
  resources?: Partial<ResourceDeps>
}

export class AppStats {
  private monitor: ResourceMonitor
  private runs = new RunStats()
  private last: { at: number; view: ResourcesView } | undefined
  private pending: Promise<ResourcesView> | undefined
  private since: number

  constructor(o: AppStatsOptions) {
    this.since = Date.now() - process.uptime() * 1000
    this.monitor = new ResourceMonitor({
      sampler: hostSampler(),
      appPid: process.pid,
      startedAt: this.since,
      self: () => {
        const u = process.cpuUsage()
        return { cpuSec: (u.user + u.system) / 1e6, rssBytes: process.memoryUsage.rss() }
      },
      children: trackedChildren,
      metrics: o.appMetrics,
      ...o.resources
    })
    o.events.on('live:state', (e) => this.runs.state(e))
    o.events.on('live:health', (h) => this.runs.health(h))
  }

  async read(): Promise<AppStatsView> {
    const now = Date.now()
    let res: ResourcesView
    if (this.last && now - this.last.at < MIN_GAP_MS) res = this.last.view
    else {
      this.pending ??= this.monitor.sample().finally(() => (this.pending = undefined))
      res = await this.pending
      this.last = { at: Date.now(), view: res }
    }
    return {
      at: Date.now(),
      since: this.since,
      cores: cpus().length,
      source: res.source,
      kinds: res.kinds,
      total: res.total,
      windowMs: res.windowMs,
      run: this.runs.view()
    }
  }
}
