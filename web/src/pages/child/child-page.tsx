import { Anchor, Skeleton, Stack } from '@mantine/core';
import { Link, useParams } from 'react-router-dom';
import { useUser } from '../../api/resources';
import { ChildAvatar, ChildNotFound, ChildTierLine } from '../../components/child-bits';
import { IconArrowLeft } from '../../components/icons';
import { ErrorAlert, PageHeader } from '../../components/page';
import { ChildAppsSummary } from '../apps/child-apps-summary';
import { WebsitesSummary } from '../websites/websites-summary';
import { ChildActions } from './child-actions';
import { ConsolesSection } from './consoles-section';
import { DevicesSection } from './devices-section';
import { SpaceCardSection } from './space-card-section';
import { TodaySection } from './today-section';

function BackToChildren() {
  return (
    <Anchor component={Link} to="/children" size="sm" mb="sm" style={{ display: 'inline-flex', gap: 6 }}>
      <IconArrowLeft size={16} /> All children
    </Anchor>
  );
}

function ChildDetails({ id }: { id: string }) {
  const user = useUser(id);
  const child = user.data;

  if (user.error?.code === 'not_found') {
    return <ChildNotFound />;
  }
  if (!child) {
    return (
      <>
        <BackToChildren />
        {user.error ? (
          <ErrorAlert error={user.error} onRetry={user.reload} title="Could not load this child" />
        ) : (
          <Stack gap="lg" aria-busy="true">
            <Skeleton h={48} w="40%" />
            <Skeleton h={110} radius="lg" />
            <Skeleton h={280} radius="lg" />
          </Stack>
        )}
      </>
    );
  }

  return (
    <>
      <BackToChildren />
      <PageHeader
        title={child.name}
        leading={<ChildAvatar name={child.name} size="lg" />}
        description={<ChildTierLine child={child} />}
        actions={<ChildActions child={child} />}
      />
      <Stack gap="lg">
        <TodaySection child={child} />
        <ChildAppsSummary child={child} />
        <WebsitesSummary child={child} />
        <SpaceCardSection
          child={child}
          onSaved={(view) =>
            user.setData((current) =>
              current
                ? {
                    ...current,
                    overlay_age_tier: view.overlay_age_tier,
                    overlay_parent_note: view.overlay_parent_note,
                  }
                : current,
            )
          }
        />
        <ConsolesSection child={child} />
        <DevicesSection child={child} onChanged={user.reload} />
      </Stack>
    </>
  );
}

export function ChildPage() {
  const { id = '' } = useParams();
  // A fresh component per child, so nothing from the previous child lingers while loading.
  return <ChildDetails key={id} id={id} />;
}
