import { Card, EmptyState } from '@mantine/core';
import type { ComponentType } from 'react';
import { IconBell, IconGlobe, IconInbox } from '../components/icons';
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

export const AccessRequestsPage = () => (
  <QuietPage
    title="Access Requests"
    description="When a child asks for more time, an app, a website or a new account, the request waits here for you."
    icon={IconInbox}
    emptyTitle="No requests right now"
    emptyDescription="You are all caught up. New requests show up here as soon as a child sends one."
  />
);

export const OnlineAccountsPage = () => (
  <QuietPage
    title="Online Accounts"
    description="Accounts your children sign in to on websites, and when each was last used."
    icon={IconGlobe}
    emptyTitle="No accounts seen yet"
    emptyDescription="As your children sign in to websites on their devices, the accounts are listed here."
  />
);

export const AlertsPage = () => (
  <QuietPage
    title="Alerts"
    description="Things worth knowing about, such as a device clock being changed or a child asking for help."
    icon={IconBell}
    emptyTitle="All quiet"
    emptyDescription="Nothing needs your attention. Alerts from your household’s devices will appear here."
  />
);
