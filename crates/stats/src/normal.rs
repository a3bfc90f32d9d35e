//! The standard normal distribution's upper tail and its inverse, to full double precision:
//! what a z-interval at any level needs (scipy's `norm.ppf`, which `ppi-python` and statsmodels
//! call).

use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// erfc(x) for x ≥ 0: 1 − erf(x) by erf's Taylor series below 2, where the series converges in
/// a few dozen terms and the subtraction loses little; the continued fraction
/// erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))) above, by Lentz's method,
/// which converges fast there and keeps its relative precision far into the tail.
fn erfc_nonnegative(x: f64) -> f64 {
    if x < 2.0 {
        // erf(x) = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1))
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        for n in 1..200 {
            term *= -x2 / n as f64;
            let add = term / (2 * n + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        return 1.0 - sum * 2.0 / PI.sqrt();
    }
    // Lentz's method on b0 + a1/(b1 + a2/(b2 + …)) with every b = x and a_k = k/2.
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..500 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (PI.sqrt() * f)
}

/// P(Z > x) for a standard normal Z.
pub fn upper_tail(x: f64) -> f64 {
    if x >= 0.0 {
        0.5 * erfc_nonnegative(x * FRAC_1_SQRT_2)
    } else {
        1.0 - 0.5 * erfc_nonnegative(-x * FRAC_1_SQRT_2)
    }
}

/// The standard normal density.
fn density(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// The x with P(Z > x) = `tail`, for `tail` in (0, 1/2]: Abramowitz and Stegun's 26.2.23 as a
/// start (within 4.5e-4), then Newton's steps on the tail itself, which keep the relative
/// precision of a small `tail`.
fn upper_quantile(tail: f64) -> f64 {
    let t = (-2.0 * tail.ln()).sqrt();
    let mut x = t
        - (2.515_517 + 0.802_853 * t + 0.010_328 * t * t)
            / (1.0 + 1.432_788 * t + 0.189_269 * t * t + 0.001_308 * t * t * t);
    for _ in 0..50 {
        let step = (upper_tail(x) - tail) / density(x);
        x += step;
        if step.abs() <= 1e-15 * x.abs().max(1.0) {
            break;
        }
    }
    x
}

/// The standard normal quantile at `p` in (0, 1) (scipy's `norm.ppf`); NaN outside.
pub fn quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    if p == 0.5 {
        0.0
    } else if p > 0.5 {
        upper_quantile(1.0 - p)
    } else {
        -upper_quantile(p)
    }
}

/// The critical value of a two-sided interval at error level `alpha`: `quantile(1 − alpha/2)`,
/// computed from the tail `alpha/2` so that a small `alpha` loses nothing.
pub fn two_sided_critical(alpha: f64) -> f64 {
    if !(alpha > 0.0 && alpha < 1.0) {
        return f64::NAN;
    }
    upper_quantile(alpha / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_scipy() {
        // scipy.stats.norm.ppf at these points.
        let cases = [
            (0.975, 1.959_963_984_540_054),
            (0.95, 1.644_853_626_951_472_2),
            (0.995, 2.575_829_303_548_900_4),
            (0.9, 1.281_551_565_544_600_4),
            (0.6, 0.253_347_103_135_799_7),
            (0.999_999, 4.753_424_308_817_087),
            (0.025, -1.959_963_984_540_054_5),
            (1e-12, -7.034_483_825_301_131),
        ];
        for (p, want) in cases {
            let got = quantile(p);
            assert!(
                (got - want).abs() < 1e-12 * want.abs().max(1.0),
                "quantile({p}) = {got}, scipy {want}"
            );
        }
        assert!((two_sided_critical(0.05) - 1.959_963_984_540_054).abs() < 1e-13);
        assert!((two_sided_critical(0.1) - 1.644_853_626_951_472_2).abs() < 1e-13);
        assert!(quantile(0.0).is_nan() && quantile(1.0).is_nan() && quantile(f64::NAN).is_nan());
        assert!(two_sided_critical(0.0).is_nan());
    }

    #[test]
    fn the_tail_is_continuous_where_the_two_methods_meet() {
        let x = 2.0 * std::f64::consts::SQRT_2;
        let below = upper_tail(x - 1e-12);
        let above = upper_tail(x + 1e-12);
        assert!((below - above).abs() / above < 1e-9);
        assert!((upper_tail(0.0) - 0.5).abs() < 1e-16);
        assert!((upper_tail(-1.0) + upper_tail(1.0) - 1.0).abs() < 1e-15);
    }
}
