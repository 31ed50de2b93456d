import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { ApiError, api, messageOf } from '../api/client';
import type { SessionView } from '../api/types';
import { IconAlert, IconClock } from '../components/icons';
import { useSession } from '../session';
import { AuthLayout } from './auth-layout';

interface Failure {
  title: string;
  message: string;
  wait?: string;
}

function describe(err: unknown): Failure {
  if (err instanceof ApiError && err.code === 'rate_limited') {
    const seconds = err.retryAfter;
    return {
      title: 'Please wait a moment',
      message: err.message,
      wait:
        seconds && seconds > 1
          ? `For your safety, sign-in is paused. Try again in about ${seconds} seconds.`
          : 'For your safety, sign-in is paused for a short while.',
    };
  }
  if (err instanceof ApiError && err.code === 'invalid_credentials') {
    return { title: 'Could not sign you in', message: err.message };
  }
  return { title: 'Could not sign you in', message: messageOf(err) };
}

/** Where to go after signing in: back to the page that sent us here, never to another site. */
export function returnPath(state: unknown): string {
  const from = (state as { from?: string } | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') && from !== '/login'
    ? from
    : '/';
}

export function LoginPage() {
  const { signedIn, setup } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [missing, setMissing] = useState<{ username?: string; password?: string }>({});
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = {
      username: username.trim() ? undefined : 'Enter your username.',
      password: password ? undefined : 'Enter your password.',
    };
    setMissing(found);
    if (found.username || found.password) return;
    setBusy(true);
    setFailure(null);
    try {
      const session = await api.post<SessionView>(
        '/api/session',
        { username: username.trim(), password },
        { quiet401: true },
      );
      // Signed in, the route guard sends the parent on to returnPath(location.state).
      signedIn(session);
    } catch (err) {
      setFailure(describe(err));
      setPassword('');
      setBusy(false);
    }
  }

  return (
    <AuthLayout
      title="Sign in"
      subtitle="Welcome back. Sign in to look after your household."
      footer={
        setup?.open_signup ? (
          <>
            New to Hearth?{' '}
            <Anchor component={Link} to="/signup">
              Create a household
            </Anchor>
          </>
        ) : null
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {failure ? (
            <Alert
              color={failure.wait ? 'yellow' : 'red'}
              variant="light"
              title={failure.title}
              icon={failure.wait ? <IconClock /> : <IconAlert />}
              role="alert"
            >
              <Text size="sm">{failure.message}</Text>
              {failure.wait ? (
                <Text size="sm" mt={4}>
                  {failure.wait}
                </Text>
              ) : null}
            </Alert>
          ) : null}
          <TextInput
            label="Username"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={missing.username}
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            autoFocus
          />
          <PasswordInput
            label="Password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={missing.password}
            autoComplete="current-password"
            required
          />
          <Button type="submit" size="md" loading={busy} fullWidth mt="xs">
            Sign in
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
