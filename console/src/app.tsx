import { useEffect, useState } from 'preact/hooks'
import { session } from './api.js'
import { CountScreen } from './screens/count.js'
import { ForecastScreen } from './screens/forecast.js'
import { OrdersScreen } from './screens/orders.js'
import { PosScreen } from './screens/pos.js'
import { SignIn } from './screens/sign-in.js'
import { StockScreen } from './screens/stock.js'
import { TransferScreen } from './screens/transfer.js'
import { VarianceScreen } from './screens/variance.js'
import { WasteScreen } from './screens/waste.js'

const SCREENS = [
  { path: 'stock', label: 'Stock', render: () => <StockScreen /> },
  { path: 'count', label: 'Count', render: () => <CountScreen /> },
  { path: 'transfer', label: 'Transfer', render: () => <TransferScreen /> },
  { path: 'waste', label: 'Waste', render: () => <WasteScreen /> },
  { path: 'variance', label: 'Variance', render: () => <VarianceScreen /> },
  { path: 'forecast', label: 'Forecast', render: () => <ForecastScreen /> },
  { path: 'orders', label: 'Orders', render: () => <OrdersScreen /> },
  { path: 'pos', label: 'POS', render: () => <PosScreen /> },
] as const

/** The screen named by the URL fragment (#/count), so links, reloads and the back button work. */
function useRoute(): string {
  const read = () => location.hash.replace(/^#\/?/, '') || SCREENS[0].path
  const [route, setRoute] = useState(read)
  useEffect(() => {
    const onChange = () => setRoute(read())
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  return route
}

export function App() {
  const [signedIn, setSignedIn] = useState(session.key() !== null)
  const [notice, setNotice] = useState('')
  const [environment, setEnvironment] = useState(sessionStorage.getItem('barstock.environment') ?? '')
  const route = useRoute()

  useEffect(
    () =>
      session.onSignedOut((message) => {
        setNotice(message ? `Signed out: ${message}. Sign in with a valid key.` : '')
        setSignedIn(false)
      }),
    [],
  )

  if (!signedIn) {
    return (
      <main id="main">
        <SignIn
          notice={notice}
          onSignedIn={(env) => {
            sessionStorage.setItem('barstock.environment', env)
            setEnvironment(env)
            setNotice('')
            setSignedIn(true)
          }}
        />
      </main>
    )
  }
  const screen = SCREENS.find((candidate) => candidate.path === route) ?? SCREENS[0]
  return (
    <>
      <a class="skip" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">barstock</span>
        {environment === 'sandbox' && <span class="badge sandbox">Sandbox</span>}
        <nav aria-label="Screens">
          {SCREENS.map((candidate) => (
            <a href={`#/${candidate.path}`} key={candidate.path} aria-current={candidate === screen ? 'page' : undefined}>
              {candidate.label}
            </a>
          ))}
        </nav>
        <button type="button" class="link" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {screen.render()}
      </main>
    </>
  )
}
