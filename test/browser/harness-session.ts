/**
 * The Chromium side of a GPU suite on a shared-device harness page (implicit-harness.html,
 * adaptive-harness.html): starts Vite and Chromium for the test file, opens the page, checks that
 * the page's error capture works, and calls the page's runners with the errors the page logged
 * meanwhile added to each result. No adapter is a failure, not a skip.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Page } from 'puppeteer-core';
import { startBrowserSession, stopBrowserSession, type BrowserSession } from './chromium.ts';
import type { SharedHarnessKey } from './harness-api.ts';

export interface HarnessSession {
  /** Calls `method` of the page's harness with `arg`, adding the errors the page logged meanwhile. */
  call<T extends { errors: string[] }>(method: string, arg?: unknown): Promise<T>;
  /** The adapter of the page's device, once the page is open. */
  adapter(): string;
}

type Harness = Record<string, (arg?: unknown) => Promise<unknown>>;

export function useHarnessPage(path: string, key: SharedHarnessKey): HarnessSession {
  let session: BrowserSession | undefined;
  let page: Page | undefined;
  let pageErrors: string[] = [];
  let adapter = '';
  const harnessPage = (): Page => {
    if (!page) throw new Error('no harness page (beforeAll failed)');
    return page;
  };
  const invoke = <T>(method: string, arg?: unknown): Promise<T> =>
    harnessPage().evaluate(
      ([k, m, a]) => (window as unknown as Record<string, Harness>)[k as string]![m as string]!(a),
      [key, method, arg] as const,
    ) as Promise<T>;

  beforeAll(async () => {
    session = await startBrowserSession();
    ({ page, pageErrors } = await session.open(path));
    await harnessPage()
      .waitForFunction(
        (k) => (window as unknown as Record<string, unknown>)[k] !== undefined,
        { timeout: 60_000 },
        key,
      )
      .catch((error: unknown) => {
        throw new Error(
          `the harness page did not load: ${(error as Error).message}\n${pageErrors.join('\n')}`,
        );
      });
    adapter = await invoke<string>('adapter');
  });

  afterAll(async () => {
    await invoke('release').catch(() => undefined);
    await stopBrowserSession(session);
  });

  test('the harness sees validation errors, scoped and uncaptured', async () => {
    const seen = await invoke<{ scoped: string[]; uncaptured: string[] }>('provokeValidationErrors');
    expect(seen.scoped).toEqual([expect.stringContaining('validation: ')]);
    expect(seen.uncaptured).toEqual([expect.stringContaining('uncaptured: ')]);
    // Chromium also logs the uncaptured error to the console; that one was on purpose.
    pageErrors.length = 0;
  });

  return {
    async call<T extends { errors: string[] }>(method: string, arg?: unknown): Promise<T> {
      const value = await invoke<T>(method, arg);
      const logged = pageErrors.splice(0);
      return { ...value, errors: [...value.errors, ...logged] };
    },
    adapter: () => adapter,
  };
}
