/**
 * Whether a configuration of version `next` may replace the program's current one: phones fetch a configuration
 * only when the server's version is above theirs, so a change that keeps the version would never reach them. A
 * string is the refusal's reason.
 */
export function checkNextVersion(current: number | undefined, next: number): string | undefined {
  if (current === undefined || next > current) return undefined;
  return `version ${next} is not above the current version ${current}: raise "version" so that phones fetch the change`;
}
