// Semantic versions of tracking plans: parsing, and which kind of bump one version is from another.
import { semverPattern } from './bundle.ts';

export interface SemanticVersion {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

/** What moved from the old version to the new; `prerelease` is a step within or out of a pre-release of the same x.y.z. */
export type VersionBump = 'major' | 'minor' | 'patch' | 'prerelease' | 'none' | 'downgrade';

/** Parses "1.4.0-rc.1+build" (build metadata is ignored, as semver says); undefined when it is not a version. */
export function parseSemanticVersion(text: string): SemanticVersion | undefined {
  const match = semverPattern.exec(text);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), prerelease: match[4] ? match[4].split('.') : [] };
}

/**
 * The kind of bump from `from` to `to`.
 * @example versionBump(parse('1.4.0'), parse('2.0.0')) // 'major'
 */
export function versionBump(from: SemanticVersion, to: SemanticVersion): VersionBump {
  if (to.major !== from.major) return to.major > from.major ? 'major' : 'downgrade';
  if (to.minor !== from.minor) return to.minor > from.minor ? 'minor' : 'downgrade';
  if (to.patch !== from.patch) return to.patch > from.patch ? 'patch' : 'downgrade';
  const order = comparePrerelease(from.prerelease, to.prerelease);
  return order < 0 ? 'prerelease' : order === 0 ? 'none' : 'downgrade';
}

/** Semver precedence of pre-release identifiers (section 11): no pre-release ranks above any pre-release. */
function comparePrerelease(left: string[], right: string[]): number {
  if (left.length === 0 || right.length === 0) return right.length - left.length;
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const [a, b] = [left[index]!, right[index]!];
    if (a === b) continue;
    const [aNumeric, bNumeric] = [/^\d+$/.test(a), /^\d+$/.test(b)];
    if (aNumeric && bNumeric) return Number(a) - Number(b);
    if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
    return a < b ? -1 : 1;
  }
  return left.length - right.length;
}
