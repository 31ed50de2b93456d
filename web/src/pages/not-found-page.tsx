import { Button, Card, EmptyState } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { Link } from 'react-router-dom';
import { IconHome } from '../components/icons';

export function NotFoundPage({
  title = 'This page is not here',
  description = 'The link may be old or mistyped. Everything else is where you left it.',
  back = { to: '/', label: 'Go to the dashboard' },
}: {
  title?: string;
  description?: string;
  back?: { to: string; label: string };
}) {
  useDocumentTitle('Not found · Hearth');
  return (
    <Card withBorder radius="lg" py={48} mt="md">
      <EmptyState icon={<IconHome size={28} />} variant="light">
        {/* The page's heading: the frame around it has none. */}
        <EmptyState.Title order={1}>{title}</EmptyState.Title>
        <EmptyState.Description>{description}</EmptyState.Description>
        <EmptyState.Actions>
          <Button component={Link} to={back.to}>
            {back.label}
          </Button>
        </EmptyState.Actions>
      </EmptyState>
    </Card>
  );
}
