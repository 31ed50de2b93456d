import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
export declare function authRoutes(app: HearthApp, { auth, config }: Services): void;
