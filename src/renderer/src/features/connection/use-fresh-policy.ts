// The page's CSP is built when the page loads, from the active connection's hosts (core/csp.ts): the
// renderer may fetch HLS from that service only. When the creator switches to another service, the page
// reloads itself to get the new policy (never in the middle of a broadcast: then it waits for the end).
// A policy that went stale some other way (a studio that came up on new ports) shows as a refused
// fetch to the active service: that reloads once as well.
import { useEffect, useRef, useState } from 'react'
import { originOf } from '../../../../shared/origin'
import { useApi } from '../../lib/api'
import { useLiveRun } from '../../lib/live-run'

const RELOADED_AT = 'onair-policy-reloaded-at'

export function useFreshPolicy(running: boolean): void {
  const api = useApi()
  const loadedWith = useRef<string | undefined>(undefined)
  const activeOrigin = useRef<string | null>(null)
  const [stale, setStale] = useState(false)

  useEffect(
    () =>
      api.on('connection:status', (s) => {
        const id = s.active?.id
        activeOrigin.current = originOf(s.active?.baseUrl ?? '')
        if (!id) return
        loadedWith.current ??= id
        if (id !== loadedWith.current) setStale(true)
      }),
    [api]
  )

  useEffect(() => {
    void api.connectionStatus().then((r) => {
      if (!r.ok) return
      loadedWith.current ??= r.value.active?.id
      activeOrigin.current = originOf(r.value.active?.baseUrl ?? '')
    })
    const onViolation = (e: SecurityPolicyViolationEvent): void => {
      const blocked = originOf(e.blockedURI)
      // At most once a minute: a service the policy cannot allow must not reload the page in a loop.
      const last = Number(sessionStorage.getItem(RELOADED_AT) ?? 0)
      if (blocked && blocked === activeOrigin.current && Date.now() - last > 60_000) {
        sessionStorage.setItem(RELOADED_AT, String(Date.now()))
        setStale(true)
      }
    }
    document.addEventListener('securitypolicyviolation', onViolation)
    return () => document.removeEventListener('securitypolicyviolation', onViolation)
  }, [api])

  useEffect(() => {
    if (stale && !running) location.reload()
  }, [stale, running])
}

/** Renders nothing: keeps the page's CSP in step with the active connection. */
export function FreshPolicy(): null {
  useFreshPolicy(useLiveRun().running)
  return null
}
