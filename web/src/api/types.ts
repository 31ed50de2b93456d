// Wire shapes come from the protocol package (types only, so no schema code reaches the bundle).
import type { AlertView, DeviceView, ManagedUserView, ParentView } from '@hearth/protocol';

export type {
  AgeTier,
  AlertKindsView,
  AlertView,
  ChildPermission,
  CommandOutcome,
  DashboardView,
  DeviceView,
  ManagedUserView,
  MappingView,
  OverlayBody,
  PairingConfig,
  ParentRole,
  ParentView,
  ProvisioningConfig,
  SessionView,
  TaskStatusView,
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

/** A page of alerts or access requests, newest first; `next_cursor` asks for the page after it. */
export interface AlertPage {
  items: AlertView[];
  next_cursor: string | null;
}

export type PruneResult = { deleted: number };
export type TasksRestarted = { restart_requested: boolean; requested_at: string };
