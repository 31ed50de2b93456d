import { ActionIcon, Box, Code, Text, Tooltip } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { IconCheck, IconCopy } from './icons';

/**
 * A shell command to type on a device, with a copy button. Where the page may not use the clipboard
 * (plain http on a home network) the command is selected instead, to copy by hand.
 */
export function CommandBlock({ label, command }: { label: string; command: string }) {
  const code = useRef<HTMLElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(command);
      setState('copied');
    } catch {
      const node = code.current;
      const selection = window.getSelection();
      if (node && selection) {
        const range = document.createRange();
        range.selectNodeContents(node);
        selection.removeAllRanges();
        selection.addRange(range);
      }
      setState('selected');
    }
  }

  const hint =
    state === 'copied'
      ? 'Copied'
      : state === 'selected'
        ? 'Selected: press Ctrl+C to copy'
        : `Copy: ${label}`;
  return (
    <Box>
      <Text size="sm" fw={500} mb={4}>
        {label}
      </Text>
      <Box pos="relative">
        <Code
          block
          ref={code}
          data-testid="command"
          pr={44}
          style={{
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
            fontSize: 'var(--mantine-font-size-sm)',
          }}
        >
          {command}
        </Code>
        <Tooltip label={hint} opened={state !== 'idle' ? true : undefined} withArrow position="top-end">
          <ActionIcon
            pos="absolute"
            top={6}
            right={6}
            variant="subtle"
            color={state === 'copied' ? 'teal' : 'gray'}
            onClick={copy}
            aria-label={`Copy: ${label}`}
            data-testid="copy-command"
          >
            {state === 'copied' ? <IconCheck size={18} /> : <IconCopy size={18} />}
          </ActionIcon>
        </Tooltip>
      </Box>
    </Box>
  );
}
