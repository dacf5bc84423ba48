// Compares two tracking plan bundles: every change, whether it breaks senders, and whether the version says so.
import { escapePointerToken, wildcardEventType, type TrackingPlanBundle } from './bundle.ts';
import type { PlanChange } from './plan-change.ts';
import { diffSchemas } from './schema-diff.ts';
import { parseSemanticVersion, versionBump, type VersionBump } from './semver.ts';

/**
 * Every change from `oldBundle` to `newBundle`, in bundle order, then the version check.
 * Both bundles are assumed structurally valid (see parseTrackingPlanBundle).
 * @example diffTrackingPlans(readTrackingPlanBundle('v1.json'), readTrackingPlanBundle('v2.json')).some((c) => c.breaking)
 */
export function diffTrackingPlans(oldBundle: TrackingPlanBundle, newBundle: TrackingPlanBundle): PlanChange[] {
  const changes: PlanChange[] = [];
  const report = (path: string, kind: string, breaking: boolean, message: string) => changes.push({ path, kind, breaking, message });
  if (oldBundle.plan !== newBundle.plan) report('/plan', 'plan-renamed', false, `plan renamed from "${oldBundle.plan}" to "${newBundle.plan}" (does not affect validation)`);
  if (oldBundle.description !== newBundle.description) report('/description', 'annotation-changed', false, 'description changed (does not affect validation)');
  const [oldEvents, newEvents] = [oldBundle.events, newBundle.events];
  const oldWildcard = Object.hasOwn(oldEvents, wildcardEventType) ? oldEvents[wildcardEventType] : undefined;
  const newWildcard = Object.hasOwn(newEvents, wildcardEventType) ? newEvents[wildcardEventType] : undefined;
  for (const type of Object.keys(oldEvents)) {
    const path = `/events/${escapePointerToken(type)}`;
    if (type === wildcardEventType) {
      if (newWildcard === undefined) report(path, 'wildcard-removed', true, 'wildcard event removed: events of undeclared types are now rejected as unknown');
      else diffSchemas(oldWildcard, newWildcard, path, changes);
    } else if (Object.hasOwn(newEvents, type)) {
      diffSchemas(oldEvents[type], newEvents[type], path, changes);
    } else if (newWildcard !== undefined) {
      // The type is now validated by the wildcard: breaking only where the wildcard is stricter than its old schema.
      report(path, 'event-removed', false, `event "${type}" removed: its events are now validated by the wildcard`);
      diffSchemas(oldEvents[type], newWildcard, path, changes);
    } else {
      report(path, 'event-removed', true, `event "${type}" removed: its events are now rejected as unknown`);
    }
  }
  for (const type of Object.keys(newEvents)) {
    if (Object.hasOwn(oldEvents, type)) continue;
    const path = `/events/${escapePointerToken(type)}`;
    if (type === wildcardEventType) {
      report(path, 'wildcard-added', false, 'wildcard event added: events of undeclared types are accepted when they match it');
    } else if (oldWildcard !== undefined) {
      // New events are a minor change, but this type used to pass the wildcard: stricter rules than its are breaking.
      report(path, 'event-added', false, `event "${type}" added (its events were validated by the wildcard before)`);
      diffSchemas(oldWildcard, newEvents[type], path, changes);
    } else {
      report(path, 'event-added', false, `event "${type}" added`);
    }
  }
  const versionChange = checkVersionBump(oldBundle.version, newBundle.version, changes);
  if (versionChange) changes.push(versionChange);
  return changes;
}

const bumpRank: Record<VersionBump, number> = { downgrade: -1, none: 0, patch: 1, minor: 2, major: 3, prerelease: 3 };

/**
 * Breaking changes need a major bump (a minor one while the major is 0, as npm's caret ranges assume); other
 * changes to validation need at least a minor bump, annotations a patch. Leaving or stepping a pre-release of the same
 * x.y.z promises nothing, so it satisfies every rule.
 */
function checkVersionBump(oldVersion: string, newVersion: string, changes: PlanChange[]): PlanChange | undefined {
  const [from, to] = [parseSemanticVersion(oldVersion), parseSemanticVersion(newVersion)];
  const path = '/version';
  if (!from || !to) return { path, kind: 'version', breaking: true, message: `cannot compare versions "${oldVersion}" and "${newVersion}"` };
  const bump = versionBump(from, to);
  const step = `${oldVersion} → ${newVersion}`;
  if (bump === 'downgrade') return { path, kind: 'version', breaking: true, message: `version went backwards (${step})` };
  if (changes.some((change) => change.breaking)) {
    const needed = from.major === 0 ? 'minor' : 'major';
    if (bumpRank[bump] < bumpRank[needed]) {
      return { path, kind: 'version', breaking: true, message: `breaking changes need a ${needed} version bump, but ${step} is ${describeBump(bump)}` };
    }
    return undefined;
  }
  const changesValidation = changes.some((change) => change.kind !== 'annotation-changed' && change.kind !== 'plan-renamed');
  if (changesValidation && bumpRank[bump] < bumpRank.minor) {
    return { path, kind: 'version', breaking: false, message: `non-breaking changes to validation should bump at least the minor version, but ${step} is ${describeBump(bump)}` };
  }
  if (changes.length > 0 && bump === 'none') {
    return { path, kind: 'version', breaking: false, message: `the plan changed but its version did not (${newVersion})` };
  }
  return undefined;
}

function describeBump(bump: VersionBump): string {
  return bump === 'none' ? 'no bump' : `a ${bump} bump`;
}
