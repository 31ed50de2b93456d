import type { TSchema } from '@sinclair/typebox';
import { compileStrict, describeErrors, findNul, jsonTooDeep, MAX_JSON_DEPTH } from '../platform/validate.js';
import type { AuthenticatedDevice } from './types.js';

export type Frame = { type: string } & Record<string, unknown>;

/** What a handler gives back for a frame that failed its schema: the channel counts it as refused. */
export const REFUSED = Symbol('refused');

/** A frame as sent, or why it is not one (the socket is then closed with 4400). */
export function parseFrame(text: string): Frame | string {
  if (jsonTooDeep(text)) return `frames may nest at most ${MAX_JSON_DEPTH} levels`;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return 'frames must be JSON';
  }
  if (
    !message ||
    typeof message !== 'object' ||
    Array.isArray(message) ||
    typeof (message as { type?: unknown }).type !== 'string'
  ) {
    return 'frames must be objects with a type';
  }
  // PostgreSQL cannot store U+0000, and no field needs it.
  if (findNul(message) !== null) return 'frames must not contain a NUL character (U+0000)';
  return message as Frame;
}

type Handler = (device: AuthenticatedDevice, message: Record<string, unknown>) => Promise<unknown> | unknown;

/** The message types authenticated agents may send, each with its schema and its feature's handler. */
export class MessageRegistry {
  private readonly handlers = new Map<string, Handler>();

  /** Frames that fail the schema get an `invalid_message` error frame, or the feature's own refusal. */
  on<T>(
    type: string,
    schema: TSchema,
    handler: (device: AuthenticatedDevice, message: T) => Promise<unknown> | unknown,
    onInvalid?: (device: AuthenticatedDevice, message: Record<string, unknown>, why: string) => void,
  ): void {
    if (this.handlers.has(type)) throw new Error(`The agent message "${type}" is registered twice.`);
    const validate = compileStrict<T>(schema);
    this.handlers.set(type, (device, message) => {
      if (!validate(message)) {
        const why = `${type}: ${describeErrors(validate.errors)}`;
        if (onInvalid) onInvalid(device, message, why);
        else device.send({ type: 'error', code: 'invalid_message', message: why });
        return REFUSED;
      }
      return handler(device, message as T);
    });
  }

  get(type: string): Handler | undefined {
    return this.handlers.get(type);
  }
}
