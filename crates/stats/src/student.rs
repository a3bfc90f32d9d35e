//! Student's t distribution: its distribution function (scipy's `t.cdf`) and the critical
//! value of a two-sided interval (`t.ppf(1 − alpha/2, df)`), for intervals from few tasks.

/// `P(T ≤ t)` for Student's t distribution with `df > 0` degrees of freedom:
/// `½ I_{df/(df+t²)}(df/2, ½)` for `t < 0`, one minus that for `t ≥ 0`.
pub fn cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t < 0.0 { 0.0 } else { 1.0 };
    }
    let t2 = t * t;
    let x = df / (df + t2);
    let y = t2 / (df + t2);
    let tail = 0.5 * regularized_beta(df / 2.0, 0.5, x, y);
    if t < 0.0 { tail } else { 1.0 - tail }
}

/// The regularized incomplete beta function `I_x(a, b)`, `y = 1 − x` given separately so that
/// it keeps its precision near `x = 1`: the continued fraction (modified Lentz), on `I_x(a, b)`
/// where it converges fast (`x < (a + 1)/(a + b + 2)`) and on `1 − I_y(b, a)` otherwise.
fn regularized_beta(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if y <= 0.0 {
        return 1.0;
    }
    let front = (a * x.ln() + b * y.ln() - ln_beta(a, b)).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, y) / b
    }
}

/// The continued fraction of the incomplete beta function (Numerical Recipes' `betacf`).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let clamp = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / clamp(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..=10_000 {
        let m = f64::from(m);
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / clamp(1.0 + even * d);
        c = clamp(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / clamp(1.0 + odd * d);
        c = clamp(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// `ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b)`.
fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// `ln Γ(x)` for `x ≥ ½` (the t distribution needs no less): the Lanczos approximation (g = 7, nine coefficients), good to about
/// 15 significant digits.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The critical value of a two-sided interval at error level `alpha` with `df > 0` degrees of
/// freedom: the `t` with `P(T > t) = alpha/2`, found by bisection on the tail (which [`cdf`]
/// gives to about 1e-15) between the normal critical value, which it never falls below, and a
/// bound that doubles until it holds. NaN for an `alpha` outside (0, 1) or a `df` not positive.
pub fn two_sided_critical(alpha: f64, df: f64) -> f64 {
    if !(alpha > 0.0 && alpha < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    let tail = alpha / 2.0;
    let upper_tail = |t: f64| cdf(-t, df);
    let mut low = crate::normal::two_sided_critical(alpha);
    let mut high = low.max(1.0);
    while upper_tail(high) > tail {
        low = high;
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high {
            break;
        }
        if upper_tail(mid) > tail {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

#[cfg(test)]
mod tests;
