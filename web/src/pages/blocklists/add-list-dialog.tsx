// "Add list": a list typed or pasted in, or one downloaded from a web address, with a preview of
// what the address holds (its format, first lines and how many domains) before it is saved.
import type { BlocklistFormat } from '@hearth/protocol';
import {
  Alert,
  Button,
  Code,
  Group,
  Modal,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type FormEvent, useState } from 'react';
import { type BlocklistSource, useAddSource, usePreviewSource } from '../../api/blocklists';
import { fieldErrorsOf } from '../../api/client';
import { IconAlert, IconPlus, IconSearch } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { NAME_MAX_LENGTH } from '../../labels';
import { count, domainCount, FORMAT_LABELS, FORMAT_OPTIONS, fetchErrorText } from './blocklist-words';

type Mode = 'manual' | 'url';

const FIELD_LABELS = { name: 'The name', domains: 'The domains', url: 'The web address' };

const looksLikeWebAddress = (url: string) => /^https?:\/\/[^\s/]+/i.test(url);

export function AddListDialog({
  opened,
  onClose,
  onAdded,
}: {
  opened: boolean;
  onClose: () => void;
  onAdded: (source: BlocklistSource) => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)');
  return (
    <Modal opened={opened} onClose={onClose} title="Add a list" centered size="lg" fullScreen={phone}>
      {/* A fresh form each time the dialog opens. */}
      {opened ? <AddListForm onAdded={onAdded} onCancel={onClose} /> : null}
    </Modal>
  );
}

function AddListForm({
  onAdded,
  onCancel,
}: {
  onAdded: (source: BlocklistSource) => void;
  onCancel: () => void;
}) {
  const [mode, setMode] = useState<Mode>('manual');
  const [name, setName] = useState('');
  const [domains, setDomains] = useState('');
  const [url, setUrl] = useState('');
  const [format, setFormat] = useState<BlocklistFormat>('auto');
  const [problems, setProblems] = useState<{ name?: string; domains?: string; url?: string }>({});
  const add = useAddSource();
  const preview = usePreviewSource();
  const server = fieldErrorsOf(add.error, FIELD_LABELS);
  // A refused address belongs under the address; anything the fields do not name goes above the buttons.
  if (add.error?.code === 'url_not_allowed') server.url = fetchErrorText(add.error);
  const addRefusal =
    add.error && !server.name && !server.domains && !server.url ? fetchErrorText(add.error) : null;

  const checkUrl = (value: string) =>
    looksLikeWebAddress(value.trim()) ? undefined : 'Type the list’s web address, starting with https://';

  function submit(event: FormEvent) {
    event.preventDefault();
    add.reset();
    const found = {
      name: name.trim() ? undefined : 'Give the list a name, such as “Ads and trackers”.',
      domains:
        mode === 'manual' && !domains.trim() ? 'Type or paste at least one website, one a line.' : undefined,
      url: mode === 'url' ? checkUrl(url) : undefined,
    };
    setProblems(found);
    if (found.name || found.domains || found.url) return;
    add.mutate(
      mode === 'manual'
        ? { name: name.trim(), kind: 'manual', domains, format }
        : { name: name.trim(), kind: 'url', url: url.trim(), format },
      { onSuccess: onAdded },
    );
  }

  function runPreview() {
    const problem = checkUrl(url);
    setProblems((p) => ({ ...p, url: problem }));
    if (problem) return;
    preview.mutate(url.trim());
  }

  // A preview (or its refusal) belongs to the address it was asked for; typing another hides it.
  const previewed = preview.variables === url.trim();
  const shown = preview.data && previewed ? preview.data : null;

  return (
    <form onSubmit={submit} noValidate aria-label="Add a list">
      <Stack gap="md">
        <SegmentedControl
          fullWidth
          aria-label="Where the list comes from"
          value={mode}
          onChange={(value) => {
            setMode(value as Mode);
            setProblems({});
            add.reset();
          }}
          data={[
            { value: 'manual', label: 'Type or paste' },
            { value: 'url', label: 'From a web address' },
          ]}
        />
        <TextInput
          label="Name"
          placeholder={mode === 'manual' ? 'Our own list' : 'Ads and trackers'}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={problems.name ?? server.name}
          maxLength={NAME_MAX_LENGTH}
          required
          data-autofocus
        />
        {mode === 'manual' ? (
          <Textarea
            label="Websites"
            description="One a line, such as games.example.com. A site also covers its subdomains. Lines from a hosts file or adblock list work too; # starts a comment."
            placeholder={'games.example.com\nvideo.example.org'}
            value={domains}
            onChange={(e) => setDomains(e.currentTarget.value)}
            error={problems.domains ?? server.domains}
            autosize
            minRows={6}
            maxRows={14}
            required
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
        ) : (
          <Stack gap="xs">
            <TextInput
              label="Web address of the list"
              description="A public hosts, adblock or domain list, as Pi-hole and AdGuard Home use. Hearth downloads it again every day."
              placeholder="https://example.org/hosts.txt"
              type="url"
              inputMode="url"
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              error={problems.url ?? server.url}
              required
            />
            <Group gap="xs">
              <Button
                variant="light"
                onClick={runPreview}
                loading={preview.isPending}
                leftSection={<IconSearch size={16} />}
              >
                Preview
              </Button>
              <Text size="sm" c="dimmed">
                See what the address holds before saving it.
              </Text>
            </Group>
            <div aria-live="polite">
              {preview.error && previewed && !preview.isPending ? (
                <Alert
                  color="red"
                  variant="light"
                  icon={<IconAlert />}
                  title="No preview"
                  data-testid="preview-error"
                >
                  {fetchErrorText(preview.error)}
                </Alert>
              ) : null}
              {shown ? (
                <Stack gap={6} data-testid="preview">
                  <Text size="sm" fw={600} data-testid="preview-summary">
                    {FORMAT_LABELS[shown.format]} · {domainCount(shown.domain_count)}
                  </Text>
                  <Text size="xs" c="dimmed">
                    The first {count(shown.first_lines.length)} lines:
                  </Text>
                  <Code
                    block
                    style={{ maxHeight: 240, overflow: 'auto' }}
                    tabIndex={0}
                    role="region"
                    aria-label="First lines of the list"
                    data-testid="preview-lines"
                  >
                    {shown.first_lines.join('\n') || '(the list is empty)'}
                  </Code>
                </Stack>
              ) : null}
            </div>
          </Stack>
        )}
        <Select
          label="Format"
          description="Leave it on Detect automatically unless a list is read wrongly."
          data={FORMAT_OPTIONS}
          value={format}
          onChange={(value) => setFormat((value as BlocklistFormat | null) ?? 'auto')}
          allowDeselect={false}
        />
        <ErrorAlert error={addRefusal} title="The list was not added" />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={add.isPending} leftSection={<IconPlus size={16} />}>
            Add list
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
