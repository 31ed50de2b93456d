import { Card, EmptyState } from '@mantine/core';
import type { ComponentType } from 'react';
import { IconGlobe } from '../components/icons';
import { PageHeader } from '../components/page';

// Pages whose lists arrive with later features: each already says what will appear and why it
// is empty today.
function QuietPage({
  title,
  description,
  icon: Icon,
  emptyTitle,
  emptyDescription,
}: {
  title: string;
  description: string;
  icon: ComponentType<{ size?: number }>;
  emptyTitle: string;
  emptyDescription: string;
}) {
  return (
    <>
      <PageHeader title={title} description={description} />
      <Card withBorder radius="lg" py={56}>
        <EmptyState
          icon={<Icon size={28} />}
          variant="light"
          title={emptyTitle}
          description={emptyDescription}
          maw={460}
          mx="auto"
        />
      </Card>
    </>
  );
}

export const OnlineAccountsPage = () => (
  <QuietPage
    title="Online Accounts"
    description="Accounts your children sign in to on websites, and when each was last used."
    icon={IconGlobe}
    emptyTitle="No accounts seen yet"
    emptyDescription="As your children sign in to websites on their devices, the accounts are listed here."
  />
);
