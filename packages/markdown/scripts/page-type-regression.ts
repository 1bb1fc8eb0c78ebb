/**
 * The page-type model's learning, without I/O: multinomial logistic regression with an L2 penalty over
 * named features, full-batch Adam, and the model written as the source of src/extract/page-type-model.ts.
 * train-page-type.ts reads the pages, picks the penalty and writes the file.
 */
import { PAGE_TYPES, type PageType } from "../src/extract/page-type.ts";

const K = PAGE_TYPES.length;

/** A page's features by index into the feature names, and its type's index in PAGE_TYPES. */
export interface Sample {
  x: Map<number, number>;
  y: number;
}

export interface Model {
  w: Float64Array[]; // per feature, K weights
  b: Float64Array;
}

/** A word of the address or title is learned from only when this many sites of the tune split use it. */
export const MIN_SITES = 4;
const isWordFeature = (name: string) => name.startsWith("path-word:") || name.startsWith("title-word:");

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
};

/** A page as the classifier reads it: its URL, its labelled type and its features by name. */
export interface ReadPage {
  page: { url: string; type: PageType };
  features: Map<string, number>;
}

/** The features every model weighs, and the words shared by enough sites of the pages learned from. */
export function learnNames(read: ReadPage[]): string[] {
  const names: string[] = [];
  const sites = new Map<string, Set<string>>();
  for (const { page, features } of read)
    for (const name of features.keys()) {
      const s = sites.get(name) ?? new Set<string>();
      sites.set(name, s);
      s.add(hostOf(page.url));
    }
  for (const [name, s] of sites) if (!isWordFeature(name) || s.size >= MIN_SITES) names.push(name);
  return names;
}

export function samplesOf(read: ReadPage[], names: readonly string[]): Sample[] {
  const index = new Map(names.map((name, i) => [name, i]));
  return read.map(({ page, features }) => {
    const x = new Map<number, number>();
    for (const [name, value] of features) {
      const i = index.get(name);
      if (i !== undefined) x.set(i, value);
    }
    return { x, y: PAGE_TYPES.indexOf(page.type) };
  });
}

export function scores(m: Model, x: Map<number, number>): Float64Array {
  const s = Float64Array.from(m.b);
  for (const [i, v] of x) {
    const w = m.w[i];
    if (w) for (let k = 0; k < K; k++) s[k] = (s[k] ?? 0) + v * (w[k] ?? 0);
  }
  return s;
}

const argmax = (s: Float64Array) => s.reduce((best, v, k) => (v > (s[best] ?? -Infinity) ? k : best), 0);

/** Full-batch Adam on the mean cross-entropy plus lambda/2 |w|^2, over `features` features. */
export function train(samples: Sample[], features: number, lambda: number, steps = 1500): Model {
  const F = features;
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

export const accuracy = (m: Model, samples: Sample[]) =>
  samples.filter((s) => argmax(scores(m, s.x)) === s.y).length / Math.max(1, samples.length);

/** The penalty with the best 5-fold cross-validated accuracy on `samples`; a tie goes to the stronger. */
export function pickPenalty(
  samples: Sample[],
  features: number,
  lambdas: readonly number[],
  report: (lambda: number, cv: number) => void = () => {},
): { lambda: number; cv: number } {
  let best = { lambda: 0, cv: -1 };
  for (const lambda of lambdas) {
    let right = 0;
    for (let fold = 0; fold < 5; fold++) {
      const fit = train(
        samples.filter((_, i) => i % 5 !== fold),
        features,
        lambda,
      );
      right +=
        accuracy(
          fit,
          samples.filter((_, i) => i % 5 === fold),
        ) * samples.filter((_, i) => i % 5 === fold).length;
    }
    const cv = right / samples.length;
    report(lambda, cv);
    // A tie goes to the stronger penalty.
    if (cv >= best.cv) best = { lambda, cv };
  }
  return best;
}

/** The source of src/extract/page-type-model.ts: weights rounded to 3 places, features weighing nothing left out. */
export function modelSource(
  model: Model,
  names: readonly string[],
  fit: { lambda: number; cv: number },
  generator: string,
): string {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const lines = names.flatMap((name, i) => {
    const w = PAGE_TYPES.map((_, k) => round(model.w[i]?.[k] ?? 0));
    // Quoted only where needed, as the formatter writes keys.
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    return w.some((v) => v !== 0) ? [`    ${key}: [${w.join(", ")}],`] : [];
  });
  return (
    `// Generated by ${generator} from the WCXB tune split (lambda ${fit.lambda},\n` +
    `// cross-validated accuracy ${fit.cv.toFixed(3)}); do not edit by hand. Weights per feature, in the order of types.\n` +
    "// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: learned weights, not constants\n" +
    `export const PAGE_TYPE_MODEL = {\n` +
    `  types: ${JSON.stringify(PAGE_TYPES).replaceAll(",", ", ")},\n` +
    `  bias: [${PAGE_TYPES.map((_, k) => round(model.b[k] ?? 0)).join(", ")}],\n` +
    `  weights: {\n${lines.join("\n")}\n  } as Record<string, number[]>,\n};\n`
  );
}
