// The one handle on window.onair for components: passed down by context so screens never reach for globals,
// and so the bridge that ensureOnair() resolved is the one every screen uses.
import { createContext, useContext, type ReactNode } from 'react'
import type { OnairApi } from '../../../shared/contract'

const ApiContext = createContext<OnairApi | null>(null)

export function ApiProvider({ api, children }: { api: OnairApi; children: ReactNode }): ReactNode {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>
}

export function useApi(): OnairApi {
  const api = useContext(ApiContext)
  if (!api) throw new Error('useApi outside ApiProvider')
  return api
}
