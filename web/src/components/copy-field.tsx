import { ActionIcon, TextInput, Tooltip } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { IconCheck, IconCopy } from './icons';

/**
 * A read-only value with a copy button. Where the page may not use the clipboard (plain http on a
 * home network), the text is selected instead so the parent can copy it by hand.
 */
export function CopyField({
  label,
  value,
  description,
  monospace = false,
}: {
  label: string;
  value: string;
  description?: string;
  monospace?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      input.current?.select();
      setState('selected');
    }
  }

  const hint =
    state === 'copied'
      ? 'Copied'
      : state === 'selected'
        ? 'Selected: press Ctrl+C to copy'
        : `Copy ${label.toLowerCase()}`;
  return (
    <TextInput
      ref={input}
      label={label}
      description={description}
      value={value}
      readOnly
      onFocus={(e) => e.currentTarget.select()}
      styles={monospace ? { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } : undefined}
      rightSectionPointerEvents="all"
      rightSection={
        <Tooltip label={hint} opened={state !== 'idle' ? true : undefined} withArrow position="top-end">
          <ActionIcon
            variant="subtle"
            color={state === 'copied' ? 'teal' : 'gray'}
            onClick={copy}
            aria-label={`Copy ${label.toLowerCase()}`}
          >
            {state === 'copied' ? <IconCheck size={18} /> : <IconCopy size={18} />}
          </ActionIcon>
        </Tooltip>
      }
    />
  );
}
