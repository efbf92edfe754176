import { dict } from '../../model';
/**
 * A multinomial naive Bayes text classifier over token sets, with Laplace smoothing and uniform
 * priors (the labelled corpora have a few logs per category by design, so their shares say
 * nothing). Small enough to own: counting and a log-sum-exp; the npm ones bring an English NLP
 * pipeline that log lines do not want.
 */
export interface Example {
  category: string;
  tokens: readonly string[];
}

export interface NaiveBayesJson {
  schema: 'bench-triage.naive-bayes/v1';
  /** Per category: examples seen, tokens seen, and each token's count. */
  categories: Record<string, { examples: number; total: number; counts: Record<string, number> }>;
}

export interface Guess {
  category: string;
  p: number;
  /** The next most likely category and its probability. */
  runnerUp: { category: string; p: number } | null;
  /** Tokens of the input the model had seen (the rest say nothing to it). */
  known: number;
}

const ALPHA = 1;

export class NaiveBayes {
  private readonly cats = new Map<string, { examples: number; total: number; counts: Map<string, number> }>();
  private readonly vocab = new Set<string>();

  static fromJSON(j: NaiveBayesJson): NaiveBayes {
    const m = new NaiveBayes();
    for (const [c, v] of Object.entries(j.categories)) {
      m.cats.set(c, { examples: v.examples, total: v.total, counts: new Map(Object.entries(v.counts)) });
      for (const t of Object.keys(v.counts)) m.vocab.add(t);
    }
    return m;
  }

  toJSON(): NaiveBayesJson {
    const categories: NaiveBayesJson['categories'] = dict();
    for (const c of [...this.cats.keys()].sort()) {
      const v = this.cats.get(c)!;
      categories[c] = { examples: v.examples, total: v.total, counts: Object.fromEntries([...v.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
    }
    return { schema: 'bench-triage.naive-bayes/v1', categories };
  }

  /** A copy with more examples (the user's labels on top of the built-in corpus). */
  with(examples: readonly Example[]): NaiveBayes {
    const m = NaiveBayes.fromJSON(this.toJSON());
    for (const e of examples) m.add(e);
    return m;
  }

  add(e: Example): void {
    const c = this.cats.get(e.category) ?? this.cats.set(e.category, { examples: 0, total: 0, counts: new Map() }).get(e.category)!;
    c.examples++;
    for (const t of new Set(e.tokens)) {
      c.counts.set(t, (c.counts.get(t) ?? 0) + 1);
      c.total++;
      this.vocab.add(t);
    }
  }

  get examples(): number {
    let n = 0;
    for (const c of this.cats.values()) n += c.examples;
    return n;
  }

  /** The most likely category of a token set; null when the model knows no category or none of the tokens. */
  predict(tokens: readonly string[]): Guess | null {
    const uniq = [...new Set(tokens)].filter(t => this.vocab.has(t));
    if (!this.cats.size || !uniq.length) return null;
    const v = this.vocab.size;
    const scores: Array<[string, number]> = [];
    for (const [c, s] of this.cats) {
      let lp = 0;
      const denom = Math.log(s.total + ALPHA * v);
      for (const t of uniq) lp += Math.log((s.counts.get(t) ?? 0) + ALPHA) - denom;
      scores.push([c, lp]);
    }
    scores.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const max = scores[0][1];
    const z = scores.reduce((sum, [, lp]) => sum + Math.exp(lp - max), 0);
    const p = (lp: number) => Math.exp(lp - max) / z;
    return {
      category: scores[0][0],
      p: p(scores[0][1]),
      runnerUp: scores[1] ? { category: scores[1][0], p: p(scores[1][1]) } : null,
      known: uniq.length,
    };
  }
}
