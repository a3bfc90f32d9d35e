// Which raters are models, so that every place the coordinator reads a rater's name (the raters'
// tables, the progress columns, the disagreements, the adjudication) marks a model's answers.
// The Progress and Models sections refresh it with the raters they list; the other sections
// call `refreshRaterKinds` when they are shown.
import { api, type RaterSummary } from '../../api';

let models = $state<ReadonlySet<string>>(new Set());
// Whether the panel's figures take the model raters' answers (off whenever a project opens).
let included = $state(false);

/** Whether agreement, the ensemble and the disagreements include the model raters. */
export function modelsIncluded(): boolean {
  return included;
}

/** Records the switch the Models section set. */
export function setModelsIncluded(on: boolean) {
  included = on;
}

/** Whether the rater of that name is a model rater. */
export function isModelRater(name: string): boolean {
  return models.has(name);
}

/** Learns the raters' kinds from a list of raters just read. */
export function learnRaterKinds(raters: RaterSummary[]) {
  models = new Set(raters.filter((r) => r.kind === 'model').map((r) => r.name));
}

/** Reads the raters' kinds again; a failure leaves the last ones (the names stay shown). */
export async function refreshRaterKinds() {
  try {
    learnRaterKinds(await api.listRaters());
  } catch {
    // The section's own request reports the project's trouble; the badges wait for the next.
  }
}
