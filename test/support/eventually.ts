/**
 * Waits until `check` holds, polling, bounded by `timeoutMs`; resolves with whether it
 * held. Tests assert on the result, never on how long it took.
 */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
