/**
 * Learns the page-type classifier's weights (src/extract/page-type-model.ts) from the labelled pages
 * of the WCXB tune split: multinomial logistic regression with an L2 penalty over the features
 * pageFeatures reads (page-type-regression.ts), the penalty picked by 5-fold cross-validation on the
 * tune split. The held split is only scored, never learned from or tuned on.
 *
 *   npm run train-page-type -w @browserfleet/markdown [-- --write]
 *
 * Without --write it prints the accuracies and leaves the model as it is.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pageTypeFeaturesOf } from "../src/convert.ts";
import {
  accuracy,
  learnNames,
  modelSource,
  pickPenalty,
  type ReadPage,
  samplesOf,
  train,
} from "./page-type-regression.ts";
import { loadWcxb, type WcxbPage } from "./wcxb-pages.ts";

const { values } = parseArgs({ options: { write: { type: "boolean", default: false } } });
const MODEL_FILE = new URL("../src/extract/page-type-model.ts", import.meta.url);
const GENERATOR = "packages/markdown/scripts/train-page-type.ts";

const featuresOf = (pages: WcxbPage[]): ReadPage[] =>
  pages.map((p) => ({ page: p, features: pageTypeFeaturesOf(p.html, p.url) }));

const tuneRead = featuresOf(loadWcxb(undefined, "tune").filter((p) => p.truth.trim()));
const names = learnNames(tuneRead);
const tune = samplesOf(tuneRead, names);
const held = samplesOf(featuresOf(loadWcxb(undefined, "held").filter((p) => p.truth.trim())), names);
console.log(`${tune.length} tune pages, ${held.length} held pages, ${names.length} features`);

const best = pickPenalty(tune, names.length, [0.0003, 0.001, 0.003], (lambda, cv) =>
  console.log(`lambda ${lambda}: cross-validated accuracy on tune ${cv.toFixed(3)}`),
);
const model = train(tune, names.length, best.lambda);
console.log(
  `lambda ${best.lambda}: accuracy on tune ${accuracy(model, tune).toFixed(3)}, on held ${accuracy(model, held).toFixed(3)}`,
);

if (values.write) {
  writeFileSync(MODEL_FILE, modelSource(model, names, best, GENERATOR));
  console.log(`wrote ${MODEL_FILE.pathname}`);
}
