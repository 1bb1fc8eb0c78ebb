/**
 * Learns the page-type classifier's weights (packages/markdown/src/extract/page-type-model.ts) from the
 * labelled pages of the WCXB tune split: multinomial logistic regression with an L2 penalty over the
 * features pageFeatures reads, the penalty picked by 5-fold cross-validation on the tune split. The held
 * split is only scored, never learned from or tuned on.
 *
 *   npx tsx bench/markdown-quality/train-page-type.ts [--write]
 *
 * Without --write it prints the accuracies and leaves the model as it is.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pageTypeFeaturesOf } from "../../packages/markdown/src/convert.ts";
import { PAGE_TYPES, type PageType } from "../../packages/markdown/src/extract/page-type.ts";
import { loadWcxb, type WcxbPage } from "./wcxb.ts";

const { values } = parseArgs({ options: { write: { type: "boolean", default: false } } });
const MODEL_FILE = new URL("../../packages/markdown/src/extract/page-type-model.ts", import.meta.url);
const K = PAGE_TYPES.length;

interface Sample {
  x: Map<number, number>;
  y: number;
}

/** A word of the address or title is learned from only when this many sites of the tune split use it. */
const MIN_SITES = 4;
const isWordFeature = (name: string) => name.startsWith("path-word:") || name.startsWith("title-word:");

const names: string[] = [];
const index = new Map<string, number>();
const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
};

function featuresOf(pages: WcxbPage[]) {
  return pages.map((p) => ({ page: p, features: pageTypeFeaturesOf(p.html, p.url) }));
}

/** The features every model weighs, and the words shared by enough sites of the pages learned from. */
function learnNames(read: ReturnType<typeof featuresOf>): void {
  const sites = new Map<string, Set<string>>();
  for (const { page, features } of read)
    for (const name of features.keys()) {
      const s = sites.get(name) ?? new Set<string>();
      sites.set(name, s);
      s.add(hostOf(page.url));
    }
  for (const [name, s] of sites)
    if (!isWordFeature(name) || s.size >= MIN_SITES) {
      index.set(name, names.length);
      names.push(name);
    }
}

function samplesOf(read: ReturnType<typeof featuresOf>): Sample[] {
  return read.map(({ page, features }) => {
    const x = new Map<number, number>();
    for (const [name, value] of features) {
      const i = index.get(name);
      if (i !== undefined) x.set(i, value);
    }
    return { x, y: PAGE_TYPES.indexOf(page.type as PageType) };
  });
}

interface Model {
  w: Float64Array[]; // per feature, K weights
  b: Float64Array;
}

function scores(m: Model, x: Map<number, number>): Float64Array {
  const s = Float64Array.from(m.b);
  for (const [i, v] of x) {
    const w = m.w[i];
    if (w) for (let k = 0; k < K; k++) s[k] = (s[k] ?? 0) + v * (w[k] ?? 0);
  }
  return s;
}

const argmax = (s: Float64Array) => s.reduce((best, v, k) => (v > (s[best] ?? -Infinity) ? k : best), 0);

/** Full-batch Adam on the mean cross-entropy plus lambda/2 |w|^2. */
function train(samples: Sample[], lambda: number, steps = 1500): Model {
  const F = names.length;
  const m: Model = { w: Array.from({ length: F }, () => new Float64Array(K)), b: new Float64Array(K) };
  const size = (F + 1) * K;
  const mom = new Float64Array(size);
  const vel = new Float64Array(size);
  const rate = 0.05;
  for (let t = 1; t <= steps; t++) {
    const grad = new Float64Array(size);
    for (const s of samples) {
      const sc = scores(m, s.x);
      const max = Math.max(...sc);
      let sum = 0;
      for (let k = 0; k < K; k++) sum += Math.exp((sc[k] ?? 0) - max);
      for (let k = 0; k < K; k++) {
        const g = (Math.exp((sc[k] ?? 0) - max) / sum - (k === s.y ? 1 : 0)) / samples.length;
        for (const [i, v] of s.x) grad[i * K + k] = (grad[i * K + k] ?? 0) + g * v;
        grad[F * K + k] = (grad[F * K + k] ?? 0) + g;
      }
    }
    for (let i = 0; i < F; i++)
      for (let k = 0; k < K; k++) grad[i * K + k] = (grad[i * K + k] ?? 0) + lambda * (m.w[i]?.[k] ?? 0);
    for (let j = 0; j < size; j++) {
      const g = grad[j] ?? 0;
      mom[j] = 0.9 * (mom[j] ?? 0) + 0.1 * g;
      vel[j] = 0.999 * (vel[j] ?? 0) + 0.001 * g * g;
      const step =
        (rate * ((mom[j] ?? 0) / (1 - 0.9 ** t))) / (Math.sqrt((vel[j] ?? 0) / (1 - 0.999 ** t)) + 1e-8);
      if (j < F * K) {
        const row = m.w[Math.floor(j / K)] as Float64Array;
        row[j % K] = (row[j % K] ?? 0) - step;
      } else m.b[j - F * K] = (m.b[j - F * K] ?? 0) - step;
    }
  }
  return m;
}

const accuracy = (m: Model, samples: Sample[]) =>
  samples.filter((s) => argmax(scores(m, s.x)) === s.y).length / Math.max(1, samples.length);

const tuneRead = featuresOf(loadWcxb(undefined, "tune").filter((p) => p.truth.trim()));
learnNames(tuneRead);
const tune = samplesOf(tuneRead);
const held = samplesOf(featuresOf(loadWcxb(undefined, "held").filter((p) => p.truth.trim())));
console.log(`${tune.length} tune pages, ${held.length} held pages, ${names.length} features`);

let best = { lambda: 0, cv: -1 };
for (const lambda of [0.0003, 0.001, 0.003]) {
  let right = 0;
  for (let fold = 0; fold < 5; fold++) {
    const fit = train(
      tune.filter((_, i) => i % 5 !== fold),
      lambda,
    );
    right +=
      accuracy(
        fit,
        tune.filter((_, i) => i % 5 === fold),
      ) * tune.filter((_, i) => i % 5 === fold).length;
  }
  const cv = right / tune.length;
  console.log(`lambda ${lambda}: cross-validated accuracy on tune ${cv.toFixed(3)}`);
  // A tie goes to the stronger penalty.
  if (cv >= best.cv) best = { lambda, cv };
}
const model = train(tune, best.lambda);
console.log(
  `lambda ${best.lambda}: accuracy on tune ${accuracy(model, tune).toFixed(3)}, on held ${accuracy(model, held).toFixed(3)}`,
);

if (values.write) {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const lines = names.flatMap((name, i) => {
    const w = PAGE_TYPES.map((_, k) => round(model.w[i]?.[k] ?? 0));
    // Quoted only where needed, as the formatter writes keys.
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    return w.some((v) => v !== 0) ? [`    ${key}: [${w.join(", ")}],`] : [];
  });
  writeFileSync(
    MODEL_FILE,
    `// Generated by bench/markdown-quality/train-page-type.ts from the WCXB tune split (lambda ${best.lambda},\n` +
      `// cross-validated accuracy ${best.cv.toFixed(3)}); do not edit by hand. Weights per feature, in the order of types.\n` +
      "// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: learned weights, not constants\n" +
      `export const PAGE_TYPE_MODEL = {\n` +
      `  types: ${JSON.stringify(PAGE_TYPES).replaceAll(",", ", ")},\n` +
      `  bias: [${PAGE_TYPES.map((_, k) => round(model.b[k] ?? 0)).join(", ")}],\n` +
      `  weights: {\n${lines.join("\n")}\n  } as Record<string, number[]>,\n};\n`,
  );
  console.log(`wrote ${MODEL_FILE.pathname}`);
}
