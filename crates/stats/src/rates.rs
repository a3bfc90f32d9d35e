//! Resolve rates and the statistics that say whether two of them differ: Wilson score
//! intervals, McNemar's exact test on paired outcomes, Kendall's τ-b between two orderings, and
//! a seeded percentile bootstrap of a paired difference. Pure: counts and slices in, numbers
//! out, no I/O.
//!
//! Definitions follow the reference libraries, and `bench/scores_reference.py` checks them to
//! 1e-9: statsmodels' `proportion_confint(method="wilson")` and `mcnemar(exact=True)`, scipy's
//! `kendalltau` (variant b).

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use rand_distr::{Binomial, Distribution};

/// The standard normal quantile at 0.975 (scipy's `norm.isf(0.025)`), for 95% intervals.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of `successes` out of `n`; `None` when `n` is 0.
pub fn wilson_interval(successes: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (successes as f64, n as f64);
    let p = k / n;
    let z2 = Z_95 * Z_95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z_95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some((center - half, center + half))
}

/// McNemar's exact test: the two-sided p-value of `b` and `c` discordant pairs (one system
/// resolved the task and the other did not, each way), twice the binomial tail at one half,
/// capped at 1. No discordant pair gives 1.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    let k = b.min(c);
    (2.0 * binomial_half_cdf(k, n)).min(1.0)
}

/// P(X ≤ k) for X ~ Binomial(n, 1/2), summing the probabilities from `k` down: each is the one
/// above times i / (n − i + 1), so for k ≤ n/2 the terms shrink and the sum stops once they no
/// longer change it. The first term comes from Loader's saddle-point form, accurate where
/// n! itself would overflow.
fn binomial_half_cdf(k: u64, n: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    if 2 * k > n {
        return 1.0 - binomial_half_cdf(n - k - 1, n);
    }
    let mut term = binomial_half_pmf(k, n);
    let mut sum = 0.0;
    let mut i = k;
    loop {
        sum += term;
        if i == 0 || term <= sum * 1e-18 {
            break;
        }
        term *= i as f64 / (n - i + 1) as f64;
        i -= 1;
    }
    sum.min(1.0)
}

/// P(X = k) for X ~ Binomial(n, 1/2), by Loader's formula: Stirling's error terms and the
/// deviance `bd0` instead of factorials, so it keeps full precision for any n.
fn binomial_half_pmf(k: u64, n: u64) -> f64 {
    let half_n = n as f64 / 2.0;
    if k == 0 || k == n {
        return (-(n as f64) * std::f64::consts::LN_2).exp();
    }
    let (x, rest, nf) = (k as f64, (n - k) as f64, n as f64);
    let log_core = stirling_error(n)
        - stirling_error(k)
        - stirling_error(n - k)
        - deviance(x, half_n)
        - deviance(rest, half_n);
    let log_scale = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / nf).ln_1p();
    (log_core - 0.5 * log_scale).exp()
}

/// ln(n!) − ln(√(2πn) (n/e)ⁿ): exact sums for small n, Stirling's series beyond.
fn stirling_error(n: u64) -> f64 {
    if n <= 15 {
        let nf = n as f64;
        let ln_factorial: f64 = (2..=n).map(|i| (i as f64).ln()).sum();
        return ln_factorial - 0.5 * (2.0 * std::f64::consts::PI * nf).ln() - nf * nf.ln() + nf;
    }
    let n = n as f64;
    let n2 = n * n;
    // The Stirling series' coefficients B₂ₖ / (2k(2k−1)): 1/12, 1/360, 1/1260, 1/1680, 1/1188.
    (1.0 / 12.0
        - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - 1.0 / 1188.0 / n2) / n2) / n2) / n2)
        / n
}

/// x ln(x / m) + m − x, by its series when x is near m so that nothing cancels.
fn deviance(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let v = (x - m) / (x + m);
        let v2 = v * v;
        let mut sum = (x - m) * v;
        let mut power = 2.0 * x * v;
        for j in 1..1000 {
            power *= v2;
            let next = sum + power / (2 * j + 1) as f64;
            if next == sum {
                return next;
            }
            sum = next;
        }
        sum
    } else {
        x * (x / m).ln() + m - x
    }
}

/// Kendall's τ-b between two equally long lists: (concordant − discordant pairs) over the
/// geometric mean of the pairs untied in each list; `None` when either list has fewer than two
/// distinct values (scipy returns NaN there).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (mut concordant, mut discordant) = (0i64, 0i64);
    let (mut tied_x, mut tied_y) = (0i64, 0i64);
    let mut pairs = 0i64;
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            pairs += 1;
            let dx = x[i].total_cmp(&x[j]) as i64;
            let dy = y[i].total_cmp(&y[j]) as i64;
            if dx == 0 {
                tied_x += 1;
            }
            if dy == 0 {
                tied_y += 1;
            }
            match dx * dy {
                1 => concordant += 1,
                -1 => discordant += 1,
                _ => {}
            }
        }
    }
    let denom = (((pairs - tied_x) as f64) * ((pairs - tied_y) as f64)).sqrt();
    if denom == 0.0 {
        return None;
    }
    Some((concordant - discordant) as f64 / denom)
}

/// Average ranks, 1 for the highest value (ties share the mean of their positions, scipy's
/// `rankdata` of the negated values).
pub fn ranks_descending(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let mean = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = mean;
        }
        start = end;
    }
    ranks
}

/// Paired outcomes of two systems on the same tasks: how many each resolved alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discordance {
    /// Tasks compared.
    pub tasks: u64,
    /// Tasks the first system resolved and the second did not.
    pub first_only: u64,
    /// Tasks the second system resolved and the first did not.
    pub second_only: u64,
}

impl Discordance {
    /// The first system's rate minus the second's; `None` on no task.
    pub fn difference(&self) -> Option<f64> {
        (self.tasks > 0)
            .then(|| (self.first_only as f64 - self.second_only as f64) / self.tasks as f64)
    }
}

/// Percentile interval (95%, numpy's linear interpolation) of the difference in rates over
/// `resamples` bootstrap resamples of the tasks, with replacement, from ChaCha8 seeded with
/// `seed` on stream `stream`. A resample's difference depends only on how many of the drawn
/// tasks each system resolved alone, and those counts are multinomial: so each resample draws
/// two binomials (the discordant tasks drawn, then how many of them favour the first system)
/// instead of `tasks` indices, the same distribution at a cost that does not grow with the
/// tasks. `None` on no task or no resample.
pub fn bootstrap_difference(
    d: Discordance,
    resamples: usize,
    seed: u64,
    stream: u64,
) -> Option<(f64, f64)> {
    if d.tasks == 0 || resamples == 0 {
        return None;
    }
    let discordant = d.first_only + d.second_only;
    if discordant == 0 {
        return Some((0.0, 0.0));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    let drawn = Binomial::new(d.tasks, discordant as f64 / d.tasks as f64).ok()?;
    let share = d.first_only as f64 / discordant as f64;
    let n = d.tasks as f64;
    let mut values = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let k = drawn.sample(&mut rng);
        let first = Binomial::new(k, share).ok()?.sample(&mut rng);
        values.push((2.0 * first as f64 - k as f64) / n);
    }
    Some((quantile(&mut values, 0.025), quantile(&mut values, 0.975)))
}

/// Quantile of values, interpolating linearly between order statistics (numpy's default). It
/// selects the two order statistics it needs instead of sorting every value, and leaves the
/// values reordered.
fn quantile(values: &mut [f64], p: f64) -> f64 {
    let pos = p * (values.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let (_, low, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    let low = *low;
    let high = if hi == lo {
        low
    } else {
        above.iter().copied().min_by(f64::total_cmp).unwrap_or(low)
    };
    low + (high - low) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn wilson_matches_published_values() {
        // 81 of 263 by the closed form at full precision, and Newcombe (1998)'s 15 of 148:
        // 0.0624 to 0.1605.
        let (lo, hi) = wilson_interval(81, 263).expect("n > 0");
        assert!(close(lo, 0.255_288_519_878_274_2, 1e-12), "{lo}");
        assert!(close(hi, 0.366_209_576_982_800_04, 1e-12), "{hi}");
        let (lo, hi) = wilson_interval(15, 148).expect("n > 0");
        assert!(
            close(lo, 0.0624, 5e-5) && close(hi, 0.1605, 5e-5),
            "{lo} {hi}"
        );
        let (lo, hi) = wilson_interval(0, 10).expect("n > 0");
        assert!(close(lo, 0.0, 1e-15) && close(hi, 0.277_532_799_862_889_2, 1e-12));
        assert_eq!(wilson_interval(0, 0), None);
    }

    #[test]
    fn quantiles_interpolate_as_numpy_does() {
        // numpy.quantile([3, 1, 4, 1, 5, 9, 2, 6], [0.025, 0.5, 0.975, 1]): 1, 3.5, 8.475, 9.
        let mut values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        assert_eq!(quantile(&mut values, 0.025), 1.0);
        assert_eq!(quantile(&mut values, 0.5), 3.5);
        assert!(close(quantile(&mut values, 0.975), 8.475, 1e-12));
        assert_eq!(quantile(&mut values, 1.0), 9.0);
    }

    #[test]
    fn mcnemar_exact_matches_the_binomial_tail() {
        // scipy: 2 * binom.cdf(k, n, 0.5).
        assert!(close(mcnemar_exact(1, 9), 0.021_484_375, 1e-15));
        assert!(close(mcnemar_exact(9, 1), 0.021_484_375, 1e-15));
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert!(close(mcnemar_exact(0, 3), 0.25, 1e-15));
        // 2 * P(X <= 4900) for X ~ Binomial(10000, 1/2), summed exactly with Python's fractions.
        assert!(close(
            mcnemar_exact(4900, 5100),
            0.046_585_527_704_947_39,
            1e-12
        ));
        // Far in the tail the value is tiny, never negative or NaN.
        let p = mcnemar_exact(10, 40_000);
        assert!((0.0..1e-300).contains(&p), "{p}");
    }

    #[test]
    fn the_pmf_sums_to_one() {
        for n in [1u64, 2, 15, 16, 17, 40, 1001] {
            let total: f64 = (0..=n).map(|k| binomial_half_pmf(k, n)).sum();
            assert!(close(total, 1.0, 1e-12), "n={n}: {total}");
        }
    }

    #[test]
    fn kendall_tau_b_handles_ties_as_scipy_does() {
        // scipy.stats.kendalltau([1, 2, 2, 3], [1, 3, 2, 2]).statistic = 0.4
        let t = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 2.0]).expect("defined");
        assert!(close(t, 0.4, 1e-15), "{t}");
        let t = kendall_tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).expect("defined");
        assert!(close(t, -1.0, 1e-15));
        assert_eq!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
    }

    #[test]
    fn ranks_average_ties_with_one_for_the_best() {
        assert_eq!(
            ranks_descending(&[0.2, 0.5, 0.2, 0.9]),
            vec![3.5, 2.0, 3.5, 1.0]
        );
    }

    #[test]
    fn the_bootstrap_is_seeded_and_brackets_the_difference() {
        let d = Discordance {
            tasks: 500,
            first_only: 60,
            second_only: 30,
        };
        let a = bootstrap_difference(d, 2000, 7, 3).expect("defined");
        assert_eq!(a, bootstrap_difference(d, 2000, 7, 3).expect("defined"));
        assert_ne!(a, bootstrap_difference(d, 2000, 7, 4).expect("defined"));
        let diff = d.difference().expect("tasks");
        assert!(a.0 < diff && diff < a.1, "{a:?} around {diff}");
        // The normal approximation's half-width, sqrt((b + c)/n - diff²)/sqrt(n) * 1.96 = 0.0361.
        assert!(close(a.1 - a.0, 2.0 * 0.0361, 0.006), "{a:?}");
        let none = Discordance {
            tasks: 10,
            first_only: 0,
            second_only: 0,
        };
        assert_eq!(bootstrap_difference(none, 100, 0, 0), Some((0.0, 0.0)));
        assert_eq!(
            bootstrap_difference(
                Discordance {
                    tasks: 0,
                    first_only: 0,
                    second_only: 0
                },
                100,
                0,
                0
            ),
            None
        );
    }
}
