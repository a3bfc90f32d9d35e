use super::*;

#[test]
fn the_t_distribution_matches_scipy() {
    // scipy.stats.t.cdf(t, df), scipy 1.15.3.
    for (df, t, p) in [
        (29.0, -2.045229642132703, 0.025000000000000078),
        (29.0, -0.5, 0.3104240420968907),
        (1.0, -3.0, 0.10241638234956672),
        (149.0, -4.2, 2.287918794933072e-05),
        (59.0, 1.3, 0.9006715498365628),
        (30.0, 0.0, 0.5),
    ] {
        let ours = cdf(t, df);
        assert!(
            (ours - p).abs() < 1e-13,
            "df {df}, t {t}: {ours}, scipy {p}"
        );
    }
    let tiny = cdf(-12.0, 499.0);
    assert!((tiny / 1.2620046995899687e-29 - 1.0).abs() < 1e-9, "{tiny}");
    assert_eq!(cdf(f64::NEG_INFINITY, 5.0), 0.0);
    assert_eq!(cdf(f64::INFINITY, 5.0), 1.0);
}

#[test]
fn critical_values_match_scipy_and_the_closed_forms() {
    // scipy.stats.t.ppf(0.025, 29), from the distribution function's test above.
    let ours = two_sided_critical(0.05, 29.0);
    assert!((ours - 2.045229642132703).abs() < 1e-12, "{ours}");
    for alpha in [0.5, 0.1, 0.05, 0.01, 1e-6] {
        let tail = alpha / 2.0;
        // One degree of freedom is Cauchy's: 1/tan(π tail); two: (1 − 2 tail)/√(2 tail (1 − tail)).
        let cauchy = 1.0 / (std::f64::consts::PI * tail).tan();
        let two = (1.0 - 2.0 * tail) / (2.0 * tail * (1.0 - tail)).sqrt();
        for (df, exact) in [(1.0, cauchy), (2.0, two)] {
            let ours = two_sided_critical(alpha, df);
            assert!(
                (ours / exact - 1.0).abs() < 1e-10,
                "alpha {alpha}, df {df}: {ours}, {exact}"
            );
        }
        // Many degrees of freedom come to the normal's value from above.
        let normal = crate::normal::two_sided_critical(alpha);
        let large = two_sided_critical(alpha, 1e7);
        assert!(large >= normal && large - normal < 1e-5, "{large} {normal}");
    }
    assert!(two_sided_critical(0.0, 5.0).is_nan());
    assert!(two_sided_critical(0.05, 0.0).is_nan());
}
