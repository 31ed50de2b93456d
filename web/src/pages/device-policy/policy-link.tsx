import { Anchor, Group, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import { LINUX_POLICY_RULES, useLinuxPolicy } from '../../api/device-policy';
import { useChildRights } from '../../api/rights';
import type { Mapping } from '../../api/types';
import { IconLock } from '../../components/icons';
import { plural } from '../../labels';
import { restrictionsAnchor } from './restrictions-panel';

/**
 * On a child's page, under a computer or phone account: how many restrictions are on there, linking to
 * them (and the screenshots) on the device's page. Only for parents who may manage the child's rules.
 */
export function PolicyLink({ mapping, childId }: { mapping: Mapping; childId: string }) {
  const rights = useChildRights();
  const linux = mapping.platform === 'linux';
  const shown =
    (linux || mapping.platform === 'android') &&
    mapping.device_status === 'approved' &&
    rights.canManage(childId);
  const policy = useLinuxPolicy(mapping.system_id, mapping.id, { enabled: shown && linux }).data;
  if (!shown) return null;
  const on = policy ? LINUX_POLICY_RULES.filter((rule) => policy[rule]).length : null;
  const device = `/devices/${encodeURIComponent(mapping.system_id)}`;
  return (
    <Group gap={6} wrap="nowrap" mt={4}>
      <IconLock size={16} style={{ flex: 'none' }} />
      <Text size="sm">
        <Anchor
          component={Link}
          to={linux ? `${device}#${restrictionsAnchor(mapping.id)}` : device}
          inherit
          data-testid="restrictions-link"
        >
          {linux ? 'Restrictions and screenshots' : 'Phone policy'}
        </Anchor>
        {on !== null ? (
          <Text span size="sm" c="dimmed">
            {' '}
            · {on ? `${plural(on, 'restriction')} on` : 'none on'}
          </Text>
        ) : null}
      </Text>
    </Group>
  );
}
