import type { ManagedUserView } from '../../api/types';

export interface DeviceChild {
  child: ManagedUserView;
  mappingId: string;
  linuxUsername: string;
}

/** Which child uses which account on each device, from the children's mappings, sorted by name. */
export function childrenByDevice(children: ManagedUserView[] | undefined): Map<string, DeviceChild[]> {
  const byDevice = new Map<string, DeviceChild[]>();
  for (const child of children ?? []) {
    for (const mapping of child.mappings) {
      const list = byDevice.get(mapping.system_id) ?? [];
      list.push({ child, mappingId: mapping.id, linuxUsername: mapping.linux_username });
      byDevice.set(mapping.system_id, list);
    }
  }
  for (const list of byDevice.values()) {
    list.sort(
      (a, b) => a.child.name.localeCompare(b.child.name) || a.linuxUsername.localeCompare(b.linuxUsername),
    );
  }
  return byDevice;
}

/** "Ann", "Ann and Ben", "Ann, Ben and Cleo": each child once, even with several accounts, A to Z. */
export function childNames(list: DeviceChild[]): string {
  const names = [...new Set(list.map((c) => c.child.name))].sort((a, b) => a.localeCompare(b));
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
