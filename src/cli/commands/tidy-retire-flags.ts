/**
 * The flags that make `tidy plan` a task retirement (docs/tasks.md), apart from the
 * retirement command itself so that an ordinary plan does not load the retirement code.
 */
export interface RetirementFlags {
  base: string | undefined;
  ref: string[];
  stateDir: string | undefined;
  task: string | undefined;
  owner: string | undefined;
  removeRegistration: boolean;
  removeFiles: string | undefined;
  json: boolean;
}

export function hasRetirementFlags(flags: RetirementFlags): boolean {
  return (
    flags.task !== undefined ||
    flags.owner !== undefined ||
    flags.removeRegistration ||
    flags.removeFiles !== undefined
  );
}
