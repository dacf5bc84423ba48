// Types of build/prepare-test-machine.mjs, for its tests (test/build/).
export interface Requirement {
  package: string;
  neededBy: string;
  paths?: string[];
  command?: string;
}
export declare const requirements: Requirement[];
export declare function candidatePaths(requirement: Pick<Requirement, 'paths' | 'command'>, root: string, searchPath: string): string[];
export declare function isExecutableFile(path: string): boolean;
export declare function missingRequirements(options?: { root?: string; searchPath?: string; isPresent?: (path: string) => boolean }): Requirement[];
export declare function installPlan(
  packages: string[],
  machine: { isRoot: boolean; hasAptGet: boolean; hasSudo: boolean; aptGet?: string },
): { commands: string[][]; shown: string; refusal?: string };
