// The active connection and the local studio's state: loaded once, then kept current by the core's
// connection:status events (the local studio goes starting -> ready, or fails, on its own time).
import { useEffect } from 'react'
import type { ConnectionStatus } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { useResult, type Loaded } from '../../lib/use-result'

export function useConnectionStatus(): Loaded<ConnectionStatus> {
  const api = useApi()
  const status = useResult(() => api.connectionStatus(), [api])
  const { set, reload } = status
  useEffect(() => api.on('connection:status', set), [api, set])
  // While the local studio is starting, ask again now and then in case an event was missed.
  const starting = status.value?.local.state === 'starting'
  useEffect(() => {
    if (!starting) return
    const t = setInterval(reload, 2000)
    return () => clearInterval(t)
  }, [starting, reload])
  // The core starts the local studio on first use. Landing on it with nothing to do would leave it
  // "stopped": ask for something cheap that needs it (the ingest address), once per stop.
  const coldLocal = status.value?.active?.kind === 'local' && status.value.local.state === 'stopped'
  useEffect(() => {
    if (!coldLocal) return
    void api.getIngest().then(reload)
  }, [coldLocal, api, reload])
  return status
}
