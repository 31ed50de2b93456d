import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { HearthMark } from '../components/icons';

/** The centred card used by setup, sign-in and sign-up, before there is a navigation frame. */
export function AuthLayout({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  useDocumentTitle(`${title} · Hearth`);
  return (
    <Center component="main" className="hearth-auth-page" px="md" py="xl">
      <Stack w="100%" maw={440} gap="lg">
        <Stack align="center" gap={6}>
          <HearthMark size={52} />
          <Text fw={700} size="lg" c="hearth">
            Hearth
          </Text>
        </Stack>
        <Paper withBorder shadow="sm" radius="lg" p={{ base: 'lg', sm: 'xl' }}>
          <Stack gap="lg">
            <Stack gap={6}>
              <Title order={1} fz={26}>
                {title}
              </Title>
              <Text c="dimmed" size="sm">
                {subtitle}
              </Text>
            </Stack>
            {children}
          </Stack>
        </Paper>
        {footer ? (
          <Text ta="center" size="sm" c="dimmed">
            {footer}
          </Text>
        ) : null}
      </Stack>
    </Center>
  );
}
