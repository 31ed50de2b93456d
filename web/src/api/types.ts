// Wire shapes come from the protocol package (types only, so no schema code reaches the bundle).
import type { DeviceView, ManagedUserView, ParentView } from '@hearth/protocol';

export type {
  AgeTier,
  ChildPermission,
  CommandOutcome,
  DeviceView,
  ManagedUserView,
  MappingView,
  OverlayBody,
  PairingConfig,
  ParentRole,
  ParentView,
  ProvisioningConfig,
  SessionView,
  UsageView,
  ValidationView,
} from '@hearth/protocol';

export interface SetupState {
  setup_required: boolean;
  open_signup: boolean;
  version: string;
}

export interface OverlayView {
  id: string;
  overlay_age_tier: ManagedUserView['overlay_age_tier'];
  overlay_parent_note: string | null;
}

export type Mapping = ManagedUserView['mappings'][number];

export interface ItemList<T> {
  items: T[];
}

export type ParentList = ItemList<ParentView>;
export type UserList = ItemList<ManagedUserView>;
export type DeviceList = ItemList<DeviceView>;
