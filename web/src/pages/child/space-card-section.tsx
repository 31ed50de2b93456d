import {
  Badge,
  Box,
  Button,
  Card,
  Grid,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../../api/client';
import type { AgeTier, ManagedUserView, OverlayView } from '../../api/types';
import { ErrorAlert, notifySaved } from '../../components/page';
import { AGE_TIER_OPTIONS, ageTierFromOption, PARENT_NOTE_MAX_LENGTH } from '../../labels';

const PREVIEW_TEXT: Record<AgeTier, { headline: string; description: string; noteLabel: string }> = {
  under8: {
    headline: 'Time for a little rest',
    description: 'Let’s take a break together. You can breathe slowly or draw a picture.',
    noteLabel: 'A note from your grown-up',
  },
  eight12: {
    headline: 'Taking a pause',
    description: 'This screen is resting for now. You can ask for more time below.',
    noteLabel: 'A note from your parent',
  },
  teen: {
    headline: 'Paused for now',
    description: 'This is on hold for the moment. If you need it, send a message.',
    noteLabel: 'From your parent',
  },
};

/** A small picture of the child's screen, so a parent sees their note the way the child will. */
function SpacePreview({ tier, note, childName }: { tier: AgeTier | null; note: string; childName: string }) {
  const effective = tier ?? 'eight12';
  const text = PREVIEW_TEXT[effective];
  const title = effective === 'under8' ? 'Cozy Corner' : 'Hearth Space';
  return (
    <Stack gap={6}>
      <Text size="sm" fw={600} c="dimmed" id="space-preview-label">
        Preview of {childName}’s screen
      </Text>
      <Paper
        radius="lg"
        p="lg"
        aria-labelledby="space-preview-label"
        data-testid="space-preview"
        style={{
          background:
            'linear-gradient(160deg, var(--mantine-color-hearth-1) 0%, var(--mantine-color-yellow-0) 55%, var(--mantine-color-teal-0) 100%)',
          color: 'var(--mantine-color-dark-7)',
        }}
      >
        <Stack gap="sm" align="center" ta="center">
          <Text size="xs" fw={700} tt="uppercase" c="hearth.9" style={{ letterSpacing: 1 }}>
            {title}
          </Text>
          <Text fw={700} fz={effective === 'under8' ? 22 : 19} lh={1.25}>
            {text.headline}
          </Text>
          <Text size="sm" c="dark.4">
            {text.description}
          </Text>
          {note.trim() ? (
            <Box
              bg="white"
              p="sm"
              w="100%"
              style={{ borderRadius: 'var(--mantine-radius-md)', boxShadow: 'var(--mantine-shadow-xs)' }}
            >
              <Text size="xs" fw={600} c="hearth.9">
                {text.noteLabel}
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {note.trim()}
              </Text>
            </Box>
          ) : null}
          {effective === 'teen' ? (
            <Box
              w="100%"
              bg="white"
              px="sm"
              py={6}
              ta="left"
              style={{
                borderRadius: 'var(--mantine-radius-md)',
                border: '1px solid var(--mantine-color-gray-3)',
              }}
            >
              <Text size="sm" c="gray.6">
                Write a message…
              </Text>
            </Box>
          ) : (
            <Group gap={6} justify="center">
              <Badge variant="white" color="hearth" radius="xl" size="md">
                More time, please
              </Badge>
              <Badge variant="white" color="hearth" radius="xl" size="md">
                I need help
              </Badge>
            </Group>
          )}
        </Stack>
      </Paper>
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
            <SpacePreview tier={ageTierFromOption(tier)} note={note} childName={child.name} />
          </Grid.Col>
        </Grid>
      </Stack>
    </Card>
  );
}
