import { Box, Button, Card, Grid, Group, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { useDebouncedValue, useElementSize } from '@mantine/hooks';
import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../../api/client';
import type { AgeTier, ManagedUserView, OverlayView } from '../../api/types';
import { ErrorAlert, notifySaved } from '../../components/page';
import { AGE_TIER_OPTIONS, ageTierFromOption, PARENT_NOTE_MAX_LENGTH } from '../../labels';

/** What the preview can show; a parent's pause is what Hearth shows most often from this page. */
const PREVIEW_SCREENS = [
  { value: 'paused', label: 'Paused by a parent', query: { reason: 'locked', context: 'paused' } },
  { value: 'locked', label: 'Time used up', query: { reason: 'locked' } },
  { value: 'sleep', label: 'Sleep', query: { reason: 'sleep' } },
  { value: 'filtered', label: 'Blocked site', query: { reason: 'filtered' } },
] as const;
type PreviewScreen = (typeof PREVIEW_SCREENS)[number]['value'];

/** The page is laid out for a laptop screen and shown scaled down to the column's width. */
const FRAME_WIDTH = 1280;
const FRAME_HEIGHT = 800;

/** The address of the real Hearth Space page with this child's settings, as a device would open it. */
export function spacePreviewUrl(options: {
  screen: PreviewScreen;
  tier: AgeTier | null;
  note: string;
  device: string | null;
}): string {
  const screen = PREVIEW_SCREENS.find((s) => s.value === options.screen) ?? PREVIEW_SCREENS[0];
  const query = new URLSearchParams(screen.query);
  query.set('age', options.tier ?? 'eight12');
  const note = options.note.trim();
  if (note) query.set('note', note);
  if (options.device) query.set('device', options.device);
  query.set('lang', 'en');
  return `/overlay/blockedv2.html?${query.toString()}`;
}

/**
 * The real Hearth Space page (`/overlay/blockedv2.html`) in a frame, with the child's tier, note and
 * device: a parent sees exactly what the child will. Opened straight from the server the page picks its
 * preview host, which sends nothing; the sandbox keeps it away from the parent's session.
 */
function SpacePreview({
  tier,
  note,
  device,
  childName,
}: {
  tier: AgeTier | null;
  note: string;
  device: string | null;
  childName: string;
}) {
  const [screen, setScreen] = useState<PreviewScreen>('paused');
  // The frame reloads for every change: wait until the parent pauses typing.
  const [settledNote] = useDebouncedValue(note, 400);
  const { ref, width } = useElementSize();
  const scale = width > 0 ? width / FRAME_WIDTH : 0;
  const src = spacePreviewUrl({ screen, tier, note: settledNote, device });

  return (
    <Stack gap={6}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text size="sm" fw={600} c="dimmed" id="space-preview-label">
          Preview of {childName}’s screen
        </Text>
        <Select
          aria-label="Preview screen"
          size="xs"
          w={180}
          data={PREVIEW_SCREENS.map(({ value, label }) => ({ value, label }))}
          value={screen}
          onChange={(value) => setScreen((value as PreviewScreen | null) ?? 'paused')}
          allowDeselect={false}
        />
      </Group>
      <Box
        ref={ref}
        data-testid="space-preview"
        style={{
          position: 'relative',
          aspectRatio: `${FRAME_WIDTH} / ${FRAME_HEIGHT}`,
          overflow: 'hidden',
          borderRadius: 'var(--mantine-radius-md)',
          border: '1px solid var(--mantine-color-gray-3)',
          background: 'var(--mantine-color-gray-0)',
        }}
      >
        {scale > 0 ? (
          <iframe
            title={`Hearth Space as ${childName} sees it`}
            aria-describedby="space-preview-label"
            src={src}
            sandbox="allow-scripts"
            width={FRAME_WIDTH}
            height={FRAME_HEIGHT}
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              border: 0,
              transform: `scale(${scale})`,
              transformOrigin: '0 0',
            }}
          />
        ) : null}
      </Box>
      <Text size="xs" c="dimmed">
        The real page, scaled down. Buttons work, but nothing is sent from the preview.
      </Text>
    </Stack>
  );
}

export function SpaceCardSection({
  child,
  onSaved,
}: {
  child: ManagedUserView;
  onSaved: (view: OverlayView) => void;
}) {
  const [tier, setTier] = useState<string | null>(child.overlay_age_tier ?? '');
  const [note, setNote] = useState(child.overlay_parent_note ?? '');
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const savedTier = child.overlay_age_tier ?? '';
  const savedNote = child.overlay_parent_note ?? '';
  const dirty = (tier ?? '') !== savedTier || note.trim() !== savedNote;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    setBusy(true);
    try {
      const trimmed = note.trim();
      const view = await api.patch<OverlayView>(`/managed-users/${encodeURIComponent(child.id)}/overlay`, {
        overlay_age_tier: ageTierFromOption(tier),
        overlay_parent_note: trimmed === '' ? null : trimmed,
      });
      setTier(view.overlay_age_tier ?? '');
      setNote(view.overlay_parent_note ?? '');
      onSaved(view);
      notifySaved(`${child.name}’s Hearth Space card is saved.`);
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const length = note.length;
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="space-card-title">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} fz="lg" id="space-card-title">
            Hearth Space card
          </Title>
          <Text size="sm" c="dimmed">
            When Hearth pauses a device, {child.name} sees a calm screen instead. Choose how it speaks to them
            and leave a note.
          </Text>
        </Stack>
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <form onSubmit={submit} noValidate aria-label="Hearth Space card">
              <Stack gap="md">
                <ErrorAlert error={failure} title="Not saved" />
                <Select
                  label="Age group"
                  description="Changes the wording and the buttons on the screen."
                  data={AGE_TIER_OPTIONS}
                  value={tier}
                  onChange={setTier}
                  allowDeselect={false}
                />
                <Stack gap={4}>
                  <Textarea
                    label="Parent note"
                    description="A short message shown on the card. Leave it empty to show no note."
                    placeholder="Dinner is at six. I love you!"
                    value={note}
                    onChange={(e) => setNote(e.currentTarget.value)}
                    maxLength={PARENT_NOTE_MAX_LENGTH}
                    autosize
                    minRows={3}
                    maxRows={8}
                  />
                  <Text
                    size="xs"
                    ta="right"
                    c={length >= PARENT_NOTE_MAX_LENGTH ? 'red' : 'dimmed'}
                    aria-live="polite"
                  >
                    {length} / {PARENT_NOTE_MAX_LENGTH} characters
                  </Text>
                </Stack>
                <Group justify="flex-end">
                  <Button type="submit" loading={busy} disabled={!dirty}>
                    Save card
                  </Button>
                </Group>
              </Stack>
            </form>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <SpacePreview
              tier={ageTierFromOption(tier)}
              note={note}
              device={child.mappings[0]?.display_name ?? null}
              childName={child.name}
            />
          </Grid.Col>
        </Grid>
      </Stack>
    </Card>
  );
}
