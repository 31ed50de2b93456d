import { Button, Center, Loader, Stack, Text, Title } from '@mantine/core';
import { lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { DataProvider } from './api/data-provider';
import { AppFrame } from './components/app-frame';
import { HearthMark } from './components/icons';
import { AccessRequestsPage } from './pages/access-requests-page';
import { AlertsPage } from './pages/alerts-page';
import { ChildAppsPage } from './pages/apps/child-apps-page';
import { BlocklistsPage } from './pages/blocklists/blocklists-page';
import { ChildPage } from './pages/child/child-page';
import { ChildrenPage } from './pages/children-page';
import { ConsolesPage } from './pages/consoles/consoles-page';
import { DashboardPage } from './pages/dashboard-page';
import { AddDevicePage } from './pages/devices/add-device-page';
import { DevicePage } from './pages/devices/device-page';
import { DevicesPage } from './pages/devices/devices-page';
import { LoginPage, returnPath } from './pages/login-page';
import { NotFoundPage } from './pages/not-found-page';
import { OnlineAccountsPage } from './pages/online-accounts-page';
import { RoutinePage } from './pages/routine/routine-page';
import { SettingsPage } from './pages/settings/settings-page';
import { SetupPage } from './pages/setup-page';
import { SignupPage } from './pages/signup-page';
import { WebsitesPage } from './pages/websites/websites-page';
import { useSession } from './session';

// The Usage page brings the chart library; it loads when a parent opens it.
const UsagePage = lazy(() => import('./pages/usage/usage-page').then((m) => ({ default: m.UsagePage })));

function StartupScreen({ children }: { children: ReactNode }) {
  return (
    <Center component="main" className="hearth-auth-page" px="md">
      <Stack align="center" gap="md" maw={420} ta="center">
        <HearthMark size={52} />
        {children}
      </Stack>
    </Center>
  );
}

/** Signed-in pages, with that parent's data; anyone else goes to sign-in and comes back afterwards. */
function RequireSession({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const location = useLocation();
  if (!session) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <DataProvider key={session.parent.id}>{children}</DataProvider>;
}

/** Pages for signed-out visitors; a signed-in parent has nothing to do there. */
function SignedOutOnly({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const location = useLocation();
  if (session) return <Navigate to={returnPath(location.state)} replace />;
  return children;
}

export function App() {
  const { load, setup, retry } = useSession();
  const location = useLocation();

  if (load.status === 'loading') {
    return (
      <StartupScreen>
        <Loader color="hearth" aria-label="Loading Hearth" />
      </StartupScreen>
    );
  }
  if (load.status === 'failed') {
    return (
      <StartupScreen>
        <Title order={1} fz={24}>
          Hearth is not answering
        </Title>
        <Text c="dimmed" role="alert">
          {load.message} Check that the server is running, then try again.
        </Text>
        <Button onClick={retry}>Try again</Button>
      </StartupScreen>
    );
  }

  // Until the first owner exists, setup is the only page.
  if (setup?.setup_required && location.pathname !== '/setup') return <Navigate to="/setup" replace />;

  return (
    <Routes>
      <Route path="/setup" element={setup?.setup_required ? <SetupPage /> : <Navigate to="/" replace />} />
      <Route
        path="/login"
        element={
          <SignedOutOnly>
            <LoginPage />
          </SignedOutOnly>
        }
      />
      <Route
        path="/signup"
        element={
          setup?.open_signup ? (
            <SignedOutOnly>
              <SignupPage />
            </SignedOutOnly>
          ) : (
            <Navigate to="/login" replace />
          )
        }
      />
      <Route
        element={
          <RequireSession>
            <AppFrame />
          </RequireSession>
        }
      >
        <Route index element={<DashboardPage />} />
        <Route path="devices" element={<DevicesPage />} />
        <Route path="devices/add" element={<AddDevicePage />} />
        <Route path="devices/:system_id" element={<DevicePage />} />
        <Route path="consoles" element={<ConsolesPage />} />
        <Route path="children" element={<ChildrenPage />} />
        <Route path="children/:id" element={<ChildPage />} />
        <Route path="children/:id/apps" element={<ChildAppsPage />} />
        <Route path="children/:id/routine" element={<RoutinePage />} />
        <Route path="children/:id/websites" element={<WebsitesPage />} />
        <Route
          path="children/:id/usage"
          element={
            <Suspense fallback={<Loader color="hearth" aria-label="Loading the usage page" m="xl" />}>
              <UsagePage />
            </Suspense>
          }
        />
        <Route path="access-requests" element={<AccessRequestsPage />} />
        <Route path="online-accounts" element={<OnlineAccountsPage />} />
        <Route path="blocklists" element={<BlocklistsPage />} />
        <Route path="alerts" element={<AlertsPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
