// Linking a vendor's family account, in four steps: what will happen, signing in at the vendor and
// pasting the address it lands on, choosing the consoles and their children, and the sync state.
// "Add a console" opens the same dialog at the third step.
import {
  Alert,
  Anchor,
  Button,
  Group,
  List,
  Modal,
  Stack,
  Stepper,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type FormEvent, useState } from 'react';
import { ApiError, messageOf } from '../../api/client';
import {
  type ConsoleProvider,
  useAuthenticateConsole,
  useConsoleStatus,
  useStartConsoleLogin,
} from '../../api/consoles';
import { IconCheck, IconExternal, IconShield } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { redirectProblem, VENDORS } from './console-words';
import { ImportConsoles } from './import-consoles';
import { ImportedConsoles, SyncNow } from './sync-panel';

const STEPS = ['How it works', 'Sign in', 'Consoles', 'Done'] as const;

function Explain({ provider, onNext }: { provider: ConsoleProvider; onNext: () => void }) {
  const vendor = VENDORS[provider];
  return (
    <Stack gap="md">
      <Text>{vendor.pitch}</Text>
      <List type="ordered" spacing="xs" size="sm" data-testid="console-explain">
        <List.Item>
          You sign in at {vendor.company} in a new tab, with the {vendor.account} that looks after your
          family. Hearth never sees your password.
        </List.Item>
        <List.Item>
          {provider === 'xbox'
            ? 'Microsoft then shows a blank page. You copy that page’s address and paste it here.'
            : 'Nintendo then shows your account with a “Select this person” button. You right-click the button, copy its link and paste it here.'}
        </List.Item>
        <List.Item>You choose which consoles Hearth looks after, and which child plays on each.</List.Item>
      </List>
      <Alert variant="light" color="teal" icon={<IconShield />} title="What Hearth keeps">
        Only a token from {vendor.company}, encrypted on your Hearth server, to read playtime and write each
        child’s routine every few minutes. Unlink at any time and Hearth deletes it.
      </Alert>
      <Group justify="flex-end">
        <Button onClick={onNext} data-testid="console-wizard-next">
          Continue
        </Button>
      </Group>
    </Stack>
  );
}

function SignIn({
  provider,
  onBack,
  onLinked,
}: {
  provider: ConsoleProvider;
  onBack: () => void;
  onLinked: (accountName: string | null) => void;
}) {
  const vendor = VENDORS[provider];
  const start = useStartConsoleLogin(provider);
  const authenticate = useAuthenticateConsole(provider);
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const open = () =>
    start.mutate(undefined, {
      // The vendor's page opens on its own, with no way back to this one.
      onSuccess: ({ url }) => void window.open(url, '_blank', 'noopener,noreferrer'),
    });

  // A wrong, garbled or replayed paste belongs under the field; the vendor failing goes above the buttons.
  const err = authenticate.error;
  const pasteRefused = err instanceof ApiError && err.status === 400 ? err.message : null;
  const otherFailure = err && !pasteRefused ? err : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    authenticate.reset();
    const found = redirectProblem(provider, pasted);
    setProblem(found);
    if (found) return;
    authenticate.mutate(
      { redirect_url: pasted.trim(), state: start.data?.state ?? null },
      { onSuccess: (answer) => onLinked(answer.account_name) },
    );
  }

  return (
    <form onSubmit={submit} noValidate aria-label={`Sign in to ${vendor.company}`}>
      <Stack gap="md">
        <Stack gap="xs" align="flex-start">
          <Button
            onClick={open}
            loading={start.isPending}
            variant={start.data ? 'default' : 'filled'}
            rightSection={<IconExternal size={16} />}
            data-testid="console-open-signin"
          >
            {vendor.signIn}
          </Button>
          <div aria-live="polite">
            {start.data ? (
              <Text size="sm" c="dimmed" data-testid="console-signin-opened">
                The sign-in opened in a new tab. No tab?{' '}
                <Anchor href={start.data.url} target="_blank" rel="noopener noreferrer">
                  Open the {vendor.company} sign-in page
                </Anchor>
                .
              </Text>
            ) : null}
          </div>
          <ErrorAlert error={start.error} title={`Could not start the ${vendor.company} sign-in`} />
        </Stack>
        <List type="ordered" spacing={4} size="sm">
          {vendor.copySteps.map((step) => (
            <List.Item key={step}>{step}</List.Item>
          ))}
        </List>
        <Textarea
          label={provider === 'xbox' ? 'Address of the page you landed on' : 'Link of “Select this person”'}
          placeholder={vendor.placeholder}
          value={pasted}
          onChange={(e) => {
            setPasted(e.currentTarget.value);
            setProblem(null);
            // A refusal belongs to the address it answered.
            authenticate.reset();
          }}
          error={problem ?? pasteRefused}
          autosize
          minRows={2}
          maxRows={5}
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          required
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
          data-testid="console-redirect-input"
        />
        <ErrorAlert
          error={otherFailure && messageOf(otherFailure)}
          title={
            otherFailure instanceof ApiError && otherFailure.code === 'upstream_failed'
              ? `${vendor.company} did not answer as expected`
              : 'The account was not linked'
          }
        />
        <Group justify="space-between" gap="sm">
          <Button variant="default" onClick={onBack}>
            Back
          </Button>
          <Button type="submit" loading={authenticate.isPending} data-testid="console-authenticate">
            Link account
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Done({
  provider,
  added,
  onClose,
}: {
  provider: ConsoleProvider;
  added: number;
  onClose: () => void;
}) {
  const vendor = VENDORS[provider];
  const status = useConsoleStatus(provider);
  const data = status.data;
  return (
    <Stack gap="md" data-testid="console-wizard-done">
      <Alert variant="light" color="teal" icon={<IconCheck />} title={`${vendor.name} is linked`}>
        {added
          ? `Hearth syncs the ${added === 1 ? 'console' : 'consoles'} every 5 minutes: playtime comes in, each child’s routine goes out as the console’s limits. Sync now to do it at once.`
          : 'Add a console from the Game consoles page whenever you are ready.'}
      </Alert>
      <ErrorAlert error={status.error} onRetry={status.reload} title="Could not load the sync state" />
      {data?.linked ? (
        <>
          <SyncNow provider={provider} status={data} canSync={data.consoles.length > 0} />
          <ImportedConsoles provider={provider} status={data} />
        </>
      ) : null}
      <Group justify="flex-end">
        <Button onClick={onClose} data-testid="console-wizard-close">
          Done
        </Button>
      </Group>
    </Stack>
  );
}

function Wizard({
  provider,
  startAt,
  onClose,
}: {
  provider: ConsoleProvider;
  startAt: 0 | 2;
  onClose: () => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)');
  const [step, setStep] = useState<number>(startAt);
  const [account, setAccount] = useState<string | null>(null);
  const [added, setAdded] = useState(0);
  const vendor = VENDORS[provider];

  return (
    <Stack gap="md">
      <Stepper
        active={step}
        size="sm"
        iconSize={phone ? 28 : 32}
        allowNextStepsSelect={false}
        color="hearth"
        data-testid="console-wizard"
        styles={phone ? { steps: { gap: 4 } } : undefined}
      >
        {STEPS.map((label, index) => (
          <Stepper.Step
            key={label}
            label={phone ? undefined : label}
            // On a phone the step shows only its number; its name says the rest.
            aria-label={phone ? `Step ${index + 1}: ${label}` : undefined}
          />
        ))}
      </Stepper>
      {phone ? (
        <Text size="sm" c="dimmed" fw={500}>
          Step {step + 1} of {STEPS.length}: {STEPS[step]}
        </Text>
      ) : null}
      <Title order={3} fz="md" data-testid="console-wizard-step">
        {step === 0
          ? `Link your family’s ${vendor.account}`
          : step === 1
            ? `Sign in at ${vendor.company}`
            : step === 2
              ? account
                ? `Linked as ${account}: choose your consoles`
                : 'Choose your consoles'
              : 'All set'}
      </Title>
      {step === 0 ? <Explain provider={provider} onNext={() => setStep(1)} /> : null}
      {step === 1 ? (
        <SignIn
          provider={provider}
          onBack={() => setStep(0)}
          onLinked={(name) => {
            setAccount(name);
            setStep(2);
          }}
        />
      ) : null}
      {step === 2 ? (
        <ImportConsoles
          provider={provider}
          onDone={(count) => {
            setAdded(count);
            setStep(3);
          }}
          onSkip={() => setStep(3)}
        />
      ) : null}
      {step === 3 ? <Done provider={provider} added={added} onClose={onClose} /> : null}
    </Stack>
  );
}

export function LinkWizard({
  provider,
  opened,
  startAt,
  onClose,
}: {
  provider: ConsoleProvider;
  opened: boolean;
  /** 0 to link the account; 2 to add a console to a linked one. */
  startAt: 0 | 2;
  onClose: () => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)');
  const vendor = VENDORS[provider];
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={startAt === 0 ? `Link ${vendor.name}` : `Add ${vendor.aName} console`}
      centered
      size="xl"
      fullScreen={phone}
      closeOnClickOutside={false}
    >
      {/* A fresh wizard each time it opens. */}
      {opened ? <Wizard provider={provider} startAt={startAt} onClose={onClose} /> : null}
    </Modal>
  );
}
