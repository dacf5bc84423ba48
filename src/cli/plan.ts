// `sightline plan validate|diff|check`: tracking plan bundles checked offline (no DATA_DIR, no server).
import { readFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { checkRecordedEvents } from '../plan/check-events.ts';
import { diffTrackingPlans } from '../plan/plan-diff.ts';
import { compileTrackingPlan, loadTrackingPlan, PlanError, readTrackingPlanBundle } from '../plan/tracking-plan.ts';
import { wildcardEventType } from '../plan/bundle.ts';
import { commonArgs, output } from './common.ts';
import { printError } from './terminal.ts';

const jsonArg = { json: commonArgs.json };

/** Exit codes: 1 is the command's own "no" (invalid plan, breaking change, failing event); 2 is unusable input. */
const unusableInput = 2;

/**
 * Runs a command body; a PlanError (or an unreadable file) prints every problem and exits with `exitCode`.
 * With --json the refusal is { error: { code: "invalid_plan", message, details } } on stderr, like other commands.
 */
function runPlanCommand(args: { json?: boolean }, exitCode: number, body: () => void): void {
  try {
    body();
  } catch (error) {
    process.exitCode = exitCode;
    if (!(error instanceof PlanError)) {
      printError(error instanceof Error ? error.message : String(error));
      return;
    }
    if (args.json) {
      process.stderr.write(`${JSON.stringify({ error: { code: 'invalid_plan', message: error.message, details: error.problems } })}\n`);
      return;
    }
    const lines = error.problems.length > 0 ? error.problems.map((problem) => `${error.source}: ${problem.path || '/'}: ${problem.message}`) : [error.message];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}

const validate = defineCommand({
  meta: { name: 'validate', description: 'Check a tracking plan bundle: structure, and every schema compiled in strict mode' },
  args: { ...jsonArg, file: { type: 'positional', description: 'Bundle file (JSON)', required: true } },
  run: ({ args }) =>
    runPlanCommand(args, 1, () => {
      const bundle = readTrackingPlanBundle(args.file);
      compileTrackingPlan(bundle, args.file);
      const events = Object.keys(bundle.events).filter((type) => type !== wildcardEventType);
      const wildcard = Object.hasOwn(bundle.events, wildcardEventType);
      output(args, { valid: true, file: args.file, plan: bundle.plan, version: bundle.version, events, wildcard }, () =>
        `${args.file}: plan "${bundle.plan}" ${bundle.version} is valid: ${events.length} event${events.length === 1 ? '' : 's'}${events.length > 0 ? ` (${events.join(', ')})` : ''}${wildcard ? ' and a wildcard' : ', no wildcard'}`,
      );
    }),
});

const diff = defineCommand({
  meta: { name: 'diff', description: 'List the changes from OLD to NEW; exit 1 when any is breaking' },
  args: {
    ...jsonArg,
    old: { type: 'positional', description: 'The current bundle', required: true },
    new: { type: 'positional', description: 'The proposed bundle', required: true },
  },
  run: ({ args }) =>
    runPlanCommand(args, unusableInput, () => {
      // Both must load as ingest would load them: diffing a plan that cannot be used says nothing.
      const [before, after] = [readTrackingPlanBundle(args.old), readTrackingPlanBundle(args.new)];
      compileTrackingPlan(before, args.old);
      compileTrackingPlan(after, args.new);
      const changes = diffTrackingPlans(before, after);
      const breaking = changes.filter((change) => change.breaking).length;
      output(args, { breaking: breaking > 0, changes }, () => {
        if (changes.length === 0) return 'No changes';
        const lines = changes.map((change) => `${change.breaking ? 'BREAKING' : 'ok      '}  ${change.path}  ${change.kind}: ${change.message}`);
        return `${lines.join('\n')}\n${changes.length} change${changes.length === 1 ? '' : 's'}, ${breaking} breaking`;
      });
      if (breaking > 0) process.exitCode = 1;
    }),
});

const check = defineCommand({
  meta: { name: 'check', description: 'Validate recorded events (NDJSON, one event or array per line) against a plan' },
  args: {
    ...jsonArg,
    file: { type: 'positional', description: 'Bundle file (JSON)', required: true },
    events: { type: 'string', description: 'NDJSON file of recorded events', required: true },
  },
  run: ({ args }) =>
    runPlanCommand(args, unusableInput, () => {
      const plan = loadTrackingPlan(args.file);
      let text: string;
      try {
        text = readFileSync(args.events, 'utf8');
      } catch (error) {
        throw new PlanError(`${args.events}: cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      const result = checkRecordedEvents(plan, text);
      const passed = result.checked - result.failedEvents;
      output(args, { checked: result.checked, passed, failed: result.failedEvents, failures: result.failures }, () => {
        const lines = result.failures.map((failure) => `line ${failure.line}: ${failure.path ? `${failure.path}: ` : ''}${failure.message}`);
        return [...lines, `${result.checked} event${result.checked === 1 ? '' : 's'} checked against ${plan.name} ${plan.version}: ${passed} passed, ${result.failedEvents} failed`].join('\n');
      });
      if (result.failedEvents > 0) process.exitCode = 1;
    }),
});

export const planCommand = defineCommand({
  meta: { name: 'plan', description: 'Check, compare and try out tracking plan bundles' },
  subCommands: { validate, diff, check },
});
