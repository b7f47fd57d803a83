/** What a promise rejected with, or undefined when it resolved: for asserting on an error's class and fields. */
export const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );
