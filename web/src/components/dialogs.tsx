import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { type ApiError, fieldErrorsOf, messageOf } from '../api/client';
import { ErrorAlert } from './page';

/** Asks before something that cannot be undone; the error, if any, stays in the dialog in plain words. */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  confirmIcon,
  busy,
  error,
  errorTitle,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  confirmIcon?: ReactNode;
  busy: boolean;
  error: ApiError | null;
  errorTitle: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack gap="md">
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        <ErrorAlert error={error && messageOf(error)} title={errorTitle} />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={busy} onClick={onConfirm} leftSection={confirmIcon}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/**
 * One name to change: a form in a dialog. Empty names are caught here; what the server refuses shows
 * under the field (its details name the field) or above the form, always in plain words.
 */
export function RenameDialog({
  opened,
  title,
  label,
  field,
  initial,
  maxLength,
  description,
  busy,
  error,
  onSave,
  onClose,
}: {
  opened: boolean;
  title: string;
  label: string;
  /** The body field the server names in its details, so its message lands under the input. */
  field: string;
  initial: string;
  maxLength: number;
  description?: string;
  busy: boolean;
  error: ApiError | null;
  onSave: (value: string) => void;
  onClose: () => void;
}) {
  const [value, setValue] = useState(initial);
  const [empty, setEmpty] = useState(false);
  useEffect(() => {
    if (opened) {
      setValue(initial);
      setEmpty(false);
    }
  }, [opened, initial]);
  const serverField = fieldErrorsOf(error, { [field]: label } as Record<string, string>)[field];

  function submit(event: FormEvent) {
    event.preventDefault();
    const name = value.trim();
    setEmpty(!name);
    if (name) onSave(name);
  }

  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <form onSubmit={submit} noValidate aria-label={title}>
        <Stack gap="md">
          <ErrorAlert
            error={error && !serverField ? messageOf(error) : null}
            title="The name was not saved"
          />
          <TextInput
            label={label}
            description={description}
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            error={empty ? `Type a ${label.toLowerCase()}.` : serverField}
            maxLength={maxLength}
            required
            data-autofocus
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Save name
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
