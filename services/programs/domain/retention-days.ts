import type { DeploymentConfig } from './deployment-config.js';
import { opcodeProgram } from './opcode.js';

/**
 * How many days a participant's raw locations are kept: their program's `itinera.raw_location_days` when it sets
 * one, else the deployment's. 0 keeps them for good.
 */
export function retentionDaysOf(
  token: string,
  programs: ReadonlyMap<string, DeploymentConfig>,
  deploymentDays: number,
): number {
  const program = opcodeProgram(token);
  const days = program === undefined ? undefined : programs.get(program)?.itinera?.raw_location_days;
  return days ?? deploymentDays;
}
