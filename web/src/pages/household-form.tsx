import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { ApiError, api, messageOf } from '../api/client';
import type { SessionView } from '../api/types';
import { ErrorAlert } from '../components/page';
import { NAME_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../labels';
import { useSession } from '../session';

interface FieldErrors {
  household_name?: string;
  username?: string;
  password?: string;
  confirm?: string;
}

/** Household name, owner username and password: first-run setup and open sign-up share it. */
export function HouseholdForm({ endpoint, submitLabel }: { endpoint: string; submitLabel: string }) {
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const [householdName, setHouseholdName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function validate(): FieldErrors {
    const next: FieldErrors = {};
    if (!householdName.trim()) next.household_name = 'Give your household a name.';
    if (!username.trim()) next.username = 'Choose a username.';
    else if (/\s/.test(username.trim())) next.username = 'A username cannot contain spaces.';
    if (password.length < PASSWORD_MIN_LENGTH)
      next.password = `The password needs at least ${PASSWORD_MIN_LENGTH} characters.`;
    if (confirm !== password) next.confirm = 'The two passwords are not the same.';
    return next;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validate();
    setErrors(found);
    setFailure(null);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const session = await api.post<SessionView>(
        endpoint,
        { username: username.trim(), password, household_name: householdName.trim() },
        { quiet401: true },
      );
      signedIn(session);
      navigate('/', { replace: true });
    } catch (err) {
      setFailure(messageOf(err));
      if (err instanceof ApiError && err.code === 'conflict' && endpoint === '/api/setup') {
        setFailure(`${err.message} Sign in instead.`);
      }
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={failure} />
        <TextInput
          label="Household name"
          placeholder="The Rivera family"
          description="Shown at the top of every page."
          value={householdName}
          onChange={(e) => setHouseholdName(e.currentTarget.value)}
          error={errors.household_name}
          maxLength={NAME_MAX_LENGTH}
          required
          autoFocus
        />
        <TextInput
          label="Your username"
          placeholder="alex"
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={errors.username}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
        />
        <PasswordInput
          label="Password"
          description={`At least ${PASSWORD_MIN_LENGTH} characters. A short sentence is easy to remember.`}
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={errors.password}
          autoComplete="new-password"
          required
        />
        <PasswordInput
          label="Confirm password"
          value={confirm}
          onChange={(e) => setConfirm(e.currentTarget.value)}
          error={errors.confirm}
          autoComplete="new-password"
          required
        />
        <Button type="submit" size="md" loading={busy} fullWidth mt="xs">
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
