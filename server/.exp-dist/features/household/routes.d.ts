import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
export declare function householdRoutes(app: HearthApp, { household }: Services): void;
