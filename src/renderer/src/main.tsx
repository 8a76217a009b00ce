import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ensureOnair } from './bridge'
import { App } from './App'
import { ApiProvider } from './lib/api'
import './styles/base.css'
import './styles/layout.css'
import './styles/live.css'
import './styles/sessions.css'
import './styles/scenes.css'
import './styles/destinations.css'
import './styles/keys.css'
import './styles/setup.css'

async function boot(): Promise<void> {
  const root = createRoot(document.getElementById('root') as HTMLElement)
  try {
    // The bridge must exist before any screen asks for data: in the web shell it opens the socket first.
    const api = await ensureOnair()
    root.render(
      <StrictMode>
        <ApiProvider api={api}>
          <App />
        </ApiProvider>
      </StrictMode>
    )
  } catch (e) {
    root.render(
      <div className="boot-error" role="alert">
        <h1>Onair could not start</h1>
        <p>{e instanceof Error ? e.message : String(e)}</p>
        <button type="button" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    )
  }
}

void boot()
