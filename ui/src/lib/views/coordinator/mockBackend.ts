// A fake Rust side for the coordinator's component tests: answers the commands it is given,
// records every call, and refuses any other command the way the shell refuses (`{code, message}`).
// Events are faked too: a test `emit`s what the shell would (`@tauri-apps/api/event`).
import { mockIPC } from '@tauri-apps/api/mocks';

export type Call = { cmd: string; args: Record<string, unknown> };
export type Handlers = Record<string, (args: Record<string, unknown>) => unknown>;

export function mockBackend(handlers: Handlers): Call[] {
  const calls: Call[] = [];
  mockIPC((cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    const handler = handlers[cmd];
    if (!handler) throw { code: 'unknown', message: `unexpected command ${cmd}` };
    return handler(args);
  }, { shouldMockEvents: true });
  return calls;
}
