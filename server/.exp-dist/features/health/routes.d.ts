import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
export declare function healthRoutes(app: HearthApp, { db }: Services): void;
