import { ActionIcon, Box, Button, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useId, useState } from 'react';
import { MAX_ALLOWED_EXTENSIONS } from '../../api/device-policy';
import { IconPlus, IconTrash } from '../../components/icons';
import { plural } from '../../labels';
import { extensionIdFrom } from './policy-words';

/**
 * The browser extensions allowed besides Hearth's own: each id with Remove, and a field that takes an
 * id or its Chrome Web Store address. Changes join the unsaved policy; Save sends them.
 */
export function ExtensionList({
  ids,
  disabled,
  onChange,
}: {
  ids: string[];
  disabled: boolean;
  onChange: (ids: string[]) => void;
}) {
  const [typed, setTyped] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const titleId = useId();

  function add(event: FormEvent) {
    event.preventDefault();
    const id = extensionIdFrom(typed);
    if (!id) {
      setInvalid(
        'An extension ID is 32 letters from a to p, as chrome://extensions shows it (or paste its Chrome Web Store address).',
      );
      return;
    }
    if (ids.includes(id)) {
      setInvalid('That extension is already allowed.');
      return;
    }
    if (ids.length >= MAX_ALLOWED_EXTENSIONS) {
      setInvalid(`At most ${MAX_ALLOWED_EXTENSIONS} extensions can be allowed.`);
      return;
    }
    setInvalid(null);
    setTyped('');
    onChange([...ids, id]);
  }

  return (
    <Stack gap={6} mt="xs" data-testid="extension-list">
      <Text size="sm" fw={600} id={titleId}>
        Allowed extensions {ids.length ? `(${ids.length})` : ''}
      </Text>
      {ids.length ? (
        <Box component="ul" aria-labelledby={titleId} m={0} p={0} style={{ listStyle: 'none' }}>
          {ids.map((id) => (
            <Group
              component="li"
              key={id}
              justify="space-between"
              gap="xs"
              wrap="nowrap"
              py={2}
              data-testid="extension-item"
            >
              <Code style={{ overflowWrap: 'anywhere', minWidth: 0 }}>{id}</Code>
              <ActionIcon
                variant="subtle"
                color="red"
                disabled={disabled}
                onClick={() => onChange(ids.filter((x) => x !== id))}
                aria-label={`Remove extension ${id}`}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
        </Box>
      ) : (
        <Text size="sm" c="dimmed">
          None yet: only Hearth’s own extension runs.
        </Text>
      )}
      <form onSubmit={add} noValidate aria-label="Allow an extension">
        <Group gap="xs" align="flex-start" wrap="wrap">
          <TextInput
            aria-label="Extension ID"
            placeholder="32 letters a–p, or its Web Store address"
            size="sm"
            value={typed}
            onChange={(e) => {
              setTyped(e.currentTarget.value);
              setInvalid(null);
            }}
            error={invalid}
            disabled={disabled}
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            style={{ flex: '1 1 16rem' }}
            data-testid="extension-input"
          />
          <Button
            type="submit"
            size="sm"
            variant="light"
            disabled={disabled}
            leftSection={<IconPlus size={16} />}
            data-testid="extension-add"
          >
            Allow extension
          </Button>
        </Group>
      </form>
      {ids.length >= MAX_ALLOWED_EXTENSIONS ? (
        <Text size="xs" c="dimmed">
          {plural(ids.length, 'extension')} allowed, the most Hearth keeps.
        </Text>
      ) : null}
    </Stack>
  );
}
