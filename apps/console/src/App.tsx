import { useEffect, useState, type ReactElement } from 'react';
import { BrowserRouter, Navigate, NavLink, Outlet, Route, Routes, useLocation } from 'react-router';
import { useSession, CAN, type Role } from './session';
import { SignInPage } from './pages/SignInPage';
import { TablesPage } from './pages/TablesPage';
import { ShoePage } from './pages/ShoePage';
import { RecallPage } from './pages/RecallPage';
import { ApprovalsPage } from './pages/ApprovalsPage';
import { ReconciliationPage } from './pages/ReconciliationPage';
import { AuditPage } from './pages/AuditPage';
import { StaffPage } from './pages/StaffPage';
import { FairnessPage } from './pages/FairnessPage';
import { WalletPage } from './pages/WalletPage';
import { TopicsPage } from './pages/TopicsPage';
import { CloseDayPage, ClosesPage } from './pages/ClosesPage';
import { ExportsPage } from './pages/ExportsPage';
import { SignificantEventsPage } from './pages/SignificantEventsPage';
import { gamingDayOf, type GamingDayRule } from './lib/zoned';

/** A page of the navigation bar and the roles that see it (the API checks the same roles). */
interface NavItem {
  readonly to: string;
  readonly label: string;
  readonly visible: (r: Role) => boolean;
}

/** The navigation bar (apps/console/README.md "Pages"). */
export const NAV: readonly NavItem[] = [
  { to: '/tables', label: 'Tables', visible: () => true },
  { to: '/approvals', label: 'Approvals', visible: CAN.readAudit },
  { to: '/significant-events', label: 'Significant events', visible: CAN.readAudit },
  { to: '/reconciliation', label: 'Reconciliation', visible: CAN.readAudit },
  { to: '/closes', label: 'Closes', visible: CAN.readAudit },
  { to: '/staff', label: 'Staff', visible: CAN.readAudit },
  { to: '/fairness', label: 'Fairness', visible: CAN.readAudit },
  { to: '/wallet', label: 'Wallet', visible: CAN.readAudit },
  { to: '/audit', label: 'Audit', visible: CAN.readAudit },
  { to: '/exports', label: 'Exports', visible: CAN.readAudit },
  { to: '/topics', label: 'Topics', visible: () => true },
];

/**
 * Today's gaming day, from the rule the API answers (`GET /me` `gamingDay`: zone and cut-off hour),
 * checked again every minute so that it turns at the cut-off.
 */
function TodayGamingDay({ rule }: { rule: GamingDayRule }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(t);
  }, []);
  const cutoff = `${String(rule.cutoffHour).padStart(2, '0')}:00`;
  return (
    <span className="today" data-testid="gaming-day" title={`${rule.timeZone}, the day turns at ${cutoff}`}>
      Gaming day {gamingDayOf(now, rule)} <span className="tz">({rule.timeZone})</span>
    </span>
  );
}

function Layout() {
  const { principal, signOut } = useSession();
  const location = useLocation();
  if (!principal) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="bar">
        <span className="brand">Baccarat ledger</span>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => n.visible(principal.role)).map((n) => (
              <li key={n.to}>
                <NavLink to={n.to}>{n.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <TodayGamingDay rule={principal.gamingDay} />
        <span className="who" data-testid="who">
          {principal.sub} · {principal.role}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

/** A route the signed-in role may not see: says so instead of showing a page the API would refuse. */
function Guard({ allow, children }: { allow: (r: Role) => boolean; children: ReactElement }) {
  const { principal } = useSession();
  if (principal && !allow(principal.role))
    return (
      <p className="state" role="alert">
        Your role ({principal.role}) may not see this page.
      </p>
    );
  return children;
}

/** The pages of pit managers and auditors (the API refuses the other roles anyway), each behind {@link Guard}. */
const BACK_OFFICE_ROUTES: readonly (readonly [string, ReactElement])[] = [
  ['/shoes/:shoeId', <ShoePage />],
  ['/shoes/:shoeId/rounds/:roundId', <RecallPage />],
  ['/approvals', <ApprovalsPage />],
  ['/significant-events', <SignificantEventsPage />],
  ['/reconciliation', <ReconciliationPage />],
  ['/staff', <StaffPage />],
  ['/fairness', <FairnessPage />],
  ['/wallet', <WalletPage />],
  ['/audit', <AuditPage />],
  ['/closes', <ClosesPage />],
  ['/closes/:day', <CloseDayPage />],
  ['/exports', <ExportsPage />],
];

/** The console's routes under `/console` (each page has a stable URL that can be shared). */
export function App() {
  return (
    <BrowserRouter basename="/console">
      <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route element={<Layout />}>
          <Route index element={<Navigate to="/tables" replace />} />
          <Route path="/tables" element={<TablesPage />} />
          {BACK_OFFICE_ROUTES.map(([path, page]) => (
            <Route key={path} path={path} element={<Guard allow={CAN.readAudit}>{page}</Guard>} />
          ))}
          <Route path="/topics" element={<TopicsPage />} />
          <Route path="*" element={<p className="state">No such page.</p>} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}
