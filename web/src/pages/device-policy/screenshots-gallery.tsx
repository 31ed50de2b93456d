// A device's screenshots (DESIGN §12): why to use them sparingly, Capture now per account with its
// progress until the picture arrives, the automatic interval, the pictures newest first, a full view
// and Delete after a confirmation.
import {
  ActionIcon,
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Group,
  Loader,
  Modal,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useCallback, useEffect, useState } from 'react';
import { messageOf } from '../../api/client';
import {
  type CaptureScreenshotAnswer,
  type ScreenshotView,
  useCaptureScreenshot,
  useDeleteScreenshot,
  useScreenshots,
} from '../../api/device-policy';
import { useLiveEvent } from '../../api/live';
import type { DeviceView } from '../../api/types';
import { ChildAvatar } from '../../components/child-bits';
import { RelativeTime } from '../../components/device-bits';
import { ConfirmDialog } from '../../components/dialogs';
import { IconCamera, IconExternal, IconHeart, IconTrash } from '../../components/icons';
import { ErrorAlert, notifySaved, StaleNotice } from '../../components/page';
import { exactTime, timeAgo } from '../../labels';
import { useSession } from '../../session';
import { childNames, type DeviceChild } from '../devices/device-children';
import { sizeText } from './policy-words';
import { ScreenshotInterval } from './screenshot-interval';

/** How long a capture sent to an online device is waited for before the parent is told it is late. */
export const CAPTURE_WAIT_MS = 60_000;
/** Pictures shown at first, and added by "Show more". */
const PAGE = 24;

interface Capture {
  requestId: string;
  /** The device was offline: the request waits in its queue. */
  queued: boolean;
  late: boolean;
  /** The device answered that it could not take the picture (no session, a declined portal). */
  refused: string | null;
  /** Its picture is in the list. */
  arrived: boolean;
}

/**
 * Why the device could not take the picture, when its answer says so. The server's answer may carry
 * the agent's error beside `delivered` (as other device commands' outcomes do); the protocol's shape
 * does not name it yet.
 */
function refusalOf(answer: CaptureScreenshotAnswer): string | null {
  const error = (answer as CaptureScreenshotAnswer & { error?: unknown }).error;
  if (!error) return null;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' ? message : 'The device could not take the picture.';
}

/** "Ann (ann)", or the account alone when no child is linked to it. */
function whoText(username: string, childOf: Map<string, string>): string {
  const child = childOf.get(username);
  return child ? `${child} (${username})` : username;
}

/**
 * The captures this tab asked for, by account, and the screenshots they became: the list says so
 * (`request_id`), and so does the `screenshot_added` event, whichever comes first.
 */
function useCaptures(systemId: string) {
  const [captures, setCaptures] = useState<Record<string, Capture>>({});
  const [arrived, setArrived] = useState<Record<string, string>>({});
  useLiveEvent(['screenshot_added'], (event) => {
    if (event.system_id !== systemId || !event.request_id) return;
    const requestId = event.request_id;
    setArrived((current) => ({ ...current, [requestId]: event.id }));
  });
  const start = useCallback((username: string, answer: CaptureScreenshotAnswer) => {
    setCaptures((current) => ({
      ...current,
      [username]: {
        requestId: answer.request_id,
        queued: !answer.delivered,
        late: false,
        refused: refusalOf(answer),
        arrived: false,
      },
    }));
  }, []);
  const markLate = useCallback((username: string, requestId: string) => {
    setCaptures((current) => {
      const capture = current[username];
      return capture?.requestId === requestId
        ? { ...current, [username]: { ...capture, late: true } }
        : current;
    });
  }, []);
  const markArrived = useCallback((requestIds: string[]) => {
    setCaptures((current) => {
      const next = { ...current };
      let changed = false;
      for (const [username, capture] of Object.entries(current)) {
        if (capture.arrived || !requestIds.includes(capture.requestId)) continue;
        next[username] = { ...capture, arrived: true };
        changed = true;
      }
      return changed ? next : current;
    });
  }, []);
  return { captures, arrived, start, markLate, markArrived };
}

function CaptureRow({
  user,
  device,
  capture,
  result,
  onStarted,
  onLate,
  onView,
}: {
  user: DeviceChild;
  device: DeviceView;
  capture: Capture | undefined;
  result: ScreenshotView | undefined;
  onStarted: (answer: CaptureScreenshotAnswer) => void;
  onLate: (requestId: string) => void;
  onView: (shot: ScreenshotView) => void;
}) {
  const capturing = useCaptureScreenshot(device.system_id);
  const waiting = !!capture && !result && !capture.refused;
  const requestId = capture?.requestId;
  const queued = capture?.queued ?? false;

  // A delivered request that brings no picture within a minute is said to be late (it may still come).
  useEffect(() => {
    if (!requestId || queued || result || capture?.refused) return;
    const timer = window.setTimeout(() => onLate(requestId), CAPTURE_WAIT_MS);
    return () => window.clearTimeout(timer);
  }, [requestId, queued, result, capture?.refused, onLate]);

  return (
    <Paper withBorder radius="md" p="sm" data-testid="screenshot-account" data-account={user.linuxUsername}>
      <Stack gap="sm">
        <Group justify="space-between" gap="sm" wrap="wrap" align="flex-start">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <ChildAvatar name={user.child.name} />
            <Stack gap={0} style={{ minWidth: 0 }}>
              <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                {user.child.name}
              </Text>
              <Text size="sm" c="dimmed">
                Account <b>{user.linuxUsername}</b>
              </Text>
            </Stack>
          </Group>
          <Button
            variant="light"
            leftSection={<IconCamera size={16} />}
            loading={capturing.isPending}
            disabled={waiting && !capture?.late}
            onClick={() =>
              capturing.mutate(user.linuxUsername, {
                onSuccess: (answer) => onStarted(answer),
              })
            }
            data-testid="screenshot-capture"
            aria-label={`Capture now (${user.child.name}, ${user.linuxUsername})`}
          >
            Capture now
          </Button>
        </Group>
        <div aria-live="polite" data-testid="screenshot-capture-state">
          {capturing.error || capture?.refused ? (
            <Text size="sm" c="red" fw={500} data-state="refused">
              Not captured: {capturing.error ? messageOf(capturing.error) : capture?.refused}
            </Text>
          ) : waiting && capture ? (
            <Group gap={8} wrap="nowrap" align="flex-start" data-state={capture.late ? 'late' : 'waiting'}>
              {capture.late ? null : <Loader size={16} aria-hidden="true" style={{ flex: 'none' }} />}
              <Text size="sm" c={capture.late ? 'yellow.9' : 'dimmed'}>
                {capture.late
                  ? `No picture yet. ${user.child.name} may not be signed in, or the screen is locked; it shows here if it still comes.`
                  : capture.queued
                    ? `${device.display_name} is offline; it takes the picture when it reconnects.`
                    : `Taking a picture of ${user.child.name}’s screen…`}
              </Text>
            </Group>
          ) : result ? (
            <Group gap="xs" data-state="done">
              <Text size="sm" c="teal.8" fw={500}>
                Taken <RelativeTime iso={result.taken_at} />; it is first below.
              </Text>
              <Button size="compact-sm" variant="subtle" onClick={() => onView(result)}>
                View
              </Button>
            </Group>
          ) : null}
        </div>
        <ScreenshotInterval
          mappingId={user.mappingId}
          linuxUsername={user.linuxUsername}
          childName={user.child.name}
        />
      </Stack>
    </Paper>
  );
}

function ScreenshotTile({
  shot,
  who,
  fresh,
  onOpen,
  onDelete,
}: {
  shot: ScreenshotView;
  who: string;
  fresh: boolean;
  onOpen: () => void;
  onDelete: () => void;
}) {
  return (
    <Paper
      component="li"
      withBorder
      radius="md"
      data-testid={`screenshot-item-${shot.id}`}
      style={{ overflow: 'hidden' }}
    >
      <UnstyledButton onClick={onOpen} display="block" w="100%" data-testid="screenshot-open">
        <Box bg="dark.6" pos="relative" style={{ aspectRatio: '16 / 10' }}>
          <img
            src={shot.image_url}
            alt={`${who}’s screen, ${timeAgo(shot.taken_at)}`}
            loading="lazy"
            decoding="async"
            width={shot.width}
            height={shot.height}
            style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', objectFit: 'contain' }}
          />
        </Box>
      </UnstyledButton>
      <Group justify="space-between" gap={4} wrap="nowrap" px="xs" py={6}>
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Group gap={4} wrap="nowrap">
            <Text size="sm" fw={500} truncate="end">
              {who}
            </Text>
            {fresh ? (
              <Badge size="xs" variant="light" color="teal" radius="sm" style={{ flex: 'none' }}>
                New
              </Badge>
            ) : null}
          </Group>
          <Text size="xs" c="dimmed">
            <RelativeTime iso={shot.taken_at} />
          </Text>
        </Stack>
        <ActionIcon
          variant="subtle"
          color="red"
          onClick={onDelete}
          aria-label={`Delete the screenshot of ${who} from ${exactTime(shot.taken_at)}`}
          data-testid="screenshot-delete"
          style={{ flex: 'none' }}
        >
          <IconTrash size={16} />
        </ActionIcon>
      </Group>
    </Paper>
  );
}

function FullView({
  shot,
  who,
  onClose,
  onDelete,
}: {
  shot: ScreenshotView | null;
  who: string;
  onClose: () => void;
  onDelete: (shot: ScreenshotView) => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)');
  return (
    <Modal
      opened={!!shot}
      onClose={onClose}
      title={shot ? `${who}, ${timeAgo(shot.taken_at)}` : ''}
      size="min(1200px, 100%)"
      fullScreen={phone}
      centered
    >
      {shot ? (
        <Stack gap="sm" data-testid="screenshot-view">
          <Box bg="dark.6" style={{ borderRadius: 'var(--mantine-radius-md)', overflow: 'hidden' }}>
            <img
              src={shot.image_url}
              alt={`${who}’s screen, ${exactTime(shot.taken_at)}`}
              width={shot.width}
              height={shot.height}
              data-testid="screenshot-full"
              style={{
                display: 'block',
                margin: '0 auto',
                maxWidth: '100%',
                maxHeight: phone ? '70vh' : '72vh',
                width: 'auto',
                height: 'auto',
              }}
            />
          </Box>
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Text size="sm" c="dimmed">
              {`${exactTime(shot.taken_at)} · ${shot.width}\u00a0×\u00a0${shot.height} · ${sizeText(shot.bytes)}`}
            </Text>
            <Group gap="xs">
              <Button
                component="a"
                href={shot.image_url}
                target="_blank"
                rel="noopener"
                variant="default"
                size="sm"
                leftSection={<IconExternal size={16} />}
              >
                Open full size
              </Button>
              <Button
                color="red"
                variant="light"
                size="sm"
                leftSection={<IconTrash size={16} />}
                onClick={() => onDelete(shot)}
                data-testid="screenshot-delete"
              >
                Delete
              </Button>
            </Group>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}

/**
 * The device's screenshots for the accounts in `users` (the children this parent may manage there):
 * others' pictures are never shown to a parent who may not manage them.
 */
export function ScreenshotsGallery({ device, users }: { device: DeviceView; users: DeviceChild[] }) {
  const { isAdmin } = useSession();
  const { captures, arrived, start, markLate, markArrived } = useCaptures(device.system_id);
  // The list is asked for often only while a picture is on its way from an online device.
  const awaiting = Object.values(captures).some((c) => !c.queued && !c.late && !c.refused && !c.arrived);
  const list = useScreenshots(device.system_id, { waiting: awaiting });
  const removal = useDeleteScreenshot(device.system_id);
  const [viewing, setViewing] = useState<ScreenshotView | null>(null);
  const [deleting, setDeleting] = useState<ScreenshotView | null>(null);
  const [shown, setShown] = useState(PAGE);

  const childOf = new Map(users.map((u) => [u.linuxUsername, u.child.name]));
  const items = (list.data?.items ?? []).filter((s) => isAdmin || childOf.has(s.linux_username));
  const resultOf = (capture: Capture | undefined) =>
    capture
      ? items.find((s) => s.request_id === capture.requestId || s.id === arrived[capture.requestId])
      : undefined;
  const fresh = new Set(
    Object.values(captures)
      .map((c) => resultOf(c)?.id)
      .filter((id): id is string => !!id),
  );
  const names = childNames(users);
  const arrivedRequests = Object.values(captures)
    .filter((c) => !c.arrived && resultOf(c))
    .map((c) => c.requestId)
    .join(' ');
  useEffect(() => {
    if (arrivedRequests) markArrived(arrivedRequests.split(' '));
  }, [arrivedRequests, markArrived]);

  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby="screenshots-title"
      id="screenshots"
      data-testid="screenshots-gallery"
    >
      <Stack gap="md">
        <Group gap="sm" wrap="nowrap">
          <IconCamera size={22} style={{ flex: 'none' }} />
          <Title order={2} fz="lg" id="screenshots-title">
            Screenshots
          </Title>
        </Group>
        <Alert variant="light" color="hearth" icon={<IconHeart />} data-testid="screenshots-note">
          <Text size="sm">
            A screenshot is a picture of everything on {names}’s screen at that moment: schoolwork, but also
            messages and things they may consider private. Use it sparingly, when you are worried rather than
            out of habit, and tell {names} that you can; a conversation often helps more than a picture. Only
            parents who may manage {names}’s rules see them, and Hearth deletes them after two weeks unless
            your server keeps them for another time.
          </Text>
        </Alert>
        <SimpleGrid cols={{ base: 1, md: users.length > 1 ? 2 : 1 }} spacing="sm">
          {users.map((user) => {
            const capture = captures[user.linuxUsername];
            return (
              <CaptureRow
                key={user.mappingId}
                user={user}
                device={device}
                capture={capture}
                result={resultOf(capture)}
                onStarted={(answer) => start(user.linuxUsername, answer)}
                onLate={(requestId) => markLate(user.linuxUsername, requestId)}
                onView={setViewing}
              />
            );
          })}
        </SimpleGrid>
        {list.error && !list.data ? (
          <ErrorAlert error={list.error} onRetry={list.reload} title="Could not load the screenshots" />
        ) : null}
        {list.data ? <StaleNotice error={list.error} /> : null}
        {!list.data && !list.error ? <Skeleton h={160} radius="md" aria-busy="true" /> : null}
        {list.data && !items.length ? (
          <Text size="sm" c="dimmed" data-testid="screenshots-none">
            No screenshots yet. Capture now takes one; automatic ones appear here as they are taken.
          </Text>
        ) : null}
        {items.length ? (
          <>
            <SimpleGrid
              cols={{ base: 2, sm: 3, lg: 4 }}
              spacing="sm"
              component="ul"
              aria-label="Screenshots, newest first"
              style={{ listStyle: 'none', margin: 0, padding: 0 }}
            >
              {items.slice(0, shown).map((shot) => (
                <ScreenshotTile
                  key={shot.id}
                  shot={shot}
                  who={whoText(shot.linux_username, childOf)}
                  fresh={fresh.has(shot.id)}
                  onOpen={() => setViewing(shot)}
                  onDelete={() => {
                    removal.reset();
                    setDeleting(shot);
                  }}
                />
              ))}
            </SimpleGrid>
            {items.length > shown ? (
              <Group justify="center">
                <Button variant="default" onClick={() => setShown((n) => n + PAGE)}>
                  Show {Math.min(PAGE, items.length - shown)} more of {items.length}
                </Button>
              </Group>
            ) : null}
          </>
        ) : null}
      </Stack>
      <FullView
        shot={viewing}
        who={viewing ? whoText(viewing.linux_username, childOf) : ''}
        onClose={() => setViewing(null)}
        onDelete={(shot) => {
          setViewing(null);
          removal.reset();
          setDeleting(shot);
        }}
      />
      <ConfirmDialog
        opened={!!deleting}
        title="Delete this screenshot?"
        confirmLabel="Delete screenshot"
        confirmIcon={<IconTrash size={16} />}
        busy={removal.isPending}
        error={removal.error}
        errorTitle="The screenshot was not deleted"
        onConfirm={() => {
          if (!deleting) return;
          removal.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null);
              notifySaved('The screenshot is deleted.');
            },
          });
        }}
        onClose={() => setDeleting(null)}
      >
        {deleting
          ? `The picture of ${whoText(deleting.linux_username, childOf)}’s screen from ${exactTime(deleting.taken_at)} is deleted from Hearth for good.`
          : ''}
      </ConfirmDialog>
    </Card>
  );
}
