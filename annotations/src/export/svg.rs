//! Small SVG charts drawn by hand, so a report needs no plotting tool: bars with interval
//! whiskers, a heat map of a rater-pair matrix, grouped count bars.

use std::fmt::Write as _;

const FONT: &str = "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\"";

/// Escapes text for SVG.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Starts a chart; it is widened to fit its title (bold 14 px text, about 8.5 px a character).
fn open(width: f64, height: f64, title: &str) -> String {
    let width = width.max(20.0 + title.chars().count() as f64 * 8.5);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" {FONT}>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
        esc(title)
    );
    s
}

/// One bar of [`interval_bars`].
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The label left of the bar.
    pub label: String,
    /// The value, when defined.
    pub value: Option<f64>,
    /// The interval, when there is one.
    pub interval: Option<[f64; 2]>,
}

/// Horizontal bars on a scale from `low` to `high` (values outside are clamped), each with its
/// interval as a whisker; an undefined value is written as text.
pub fn interval_bars(title: &str, bars: &[Bar], low: f64, high: f64) -> String {
    // Wide enough for the longest label (12 px text, about 7 px a character).
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    let label_width = f64::max(260.0, 16.0 + longest as f64 * 7.0);
    let plot = 360.0;
    let row = 24.0;
    let top = 40.0;
    let width = label_width + plot + 80.0;
    let height = top + row * bars.len() as f64 + 40.0;
    let x = |v: f64| label_width + (v.clamp(low, high) - low) / (high - low) * plot;
    let mut s = open(width, height, title);
    let bottom = top + row * bars.len() as f64;
    for tick in 0..=4 {
        let v = low + (high - low) * tick as f64 / 4.0;
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom}\" stroke=\"#ddd\"/><text x=\"{0:.1}\" y=\"{1:.1}\" text-anchor=\"middle\">{v:.2}</text>",
            x(v),
            bottom + 16.0
        );
    }
    if low < 0.0 && high > 0.0 {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom}\" stroke=\"#444\"/>",
            x(0.0)
        );
    }
    for (i, bar) in bars.iter().enumerate() {
        let y = top + row * i as f64;
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            label_width - 8.0,
            y + 16.0,
            esc(&bar.label)
        );
        match bar.value {
            Some(v) => {
                let base = x(low.max(0.0).min(high));
                let (x0, x1) = if x(v) < base {
                    (x(v), base)
                } else {
                    (base, x(v))
                };
                let _ = writeln!(
                    s,
                    "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"14\" fill=\"#4c78a8\"/><text x=\"{:.1}\" y=\"{:.1}\">{v:.3}</text>",
                    y + 5.0,
                    (x1 - x0).max(1.0),
                    label_width + plot + 8.0,
                    y + 16.0
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#888\">undefined</text>",
                    label_width + 4.0,
                    y + 16.0
                );
            }
        }
        if let Some([lo, hi]) = bar.interval {
            let yc = y + 12.0;
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{yc:.1}\" x2=\"{:.1}\" y2=\"{yc:.1}\" stroke=\"black\" stroke-width=\"1.5\"/><line x1=\"{0:.1}\" y1=\"{:.1}\" x2=\"{0:.1}\" y2=\"{:.1}\" stroke=\"black\"/><line x1=\"{1:.1}\" y1=\"{2:.1}\" x2=\"{1:.1}\" y2=\"{3:.1}\" stroke=\"black\"/>",
                x(lo),
                x(hi),
                yc - 5.0,
                yc + 5.0
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

/// A colour from red (-1) through white (0) to blue (1).
fn diverging(v: f64) -> String {
    let v = v.clamp(-1.0, 1.0);
    let (r, g, b) = if v >= 0.0 {
        (255.0 - 179.0 * v, 255.0 - 135.0 * v, 255.0 - 87.0 * v)
    } else {
        (255.0, 255.0 + 168.0 * v, 255.0 + 168.0 * v)
    };
    format!("rgb({r:.0},{g:.0},{b:.0})")
}

/// A heat map of a symmetric rater-pair matrix (kappa from -1 to 1); empty cells, and pairs
/// sharing fewer than `min_shared` cases (`units`), are grey.
pub fn pair_heatmap(
    title: &str,
    raters: &[String],
    values: &[Vec<Option<f64>>],
    units: &[Vec<usize>],
    min_shared: usize,
) -> String {
    let n = raters.len().max(1) as f64;
    let cell = (480.0 / n).clamp(6.0, 48.0);
    let label = if raters.len() > 30 { 0.0 } else { 90.0 };
    let top = 40.0 + label;
    let left = 10.0 + label;
    let legend = format!(
        "red: kappa below 0, white: 0, blue: 1; grey: fewer than {min_shared} shared cases, or undefined"
    );
    let width = (left + cell * n + 20.0).max(left + legend.len() as f64 * 6.5 + 10.0);
    let height = top + cell * n + 30.0;
    let mut s = open(width.max(320.0), height, title);
    // Most cells of a large panel's matrix are grey (pairs sharing few cases or none): one grey
    // square under a white grid stands for them and only the coloured cells are drawn, so the
    // chart grows with the measured pairs, not with the square of the raters.
    let side = cell * raters.len() as f64;
    let _ = writeln!(
        s,
        "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{side:.1}\" height=\"{side:.1}\" fill=\"#eee\"/>"
    );
    for k in 0..=raters.len() {
        let at = k as f64 * cell;
        let _ = write!(
            s,
            "<path d=\"M{:.1} {top:.1}v{side:.1}M{left:.1} {:.1}h{side:.1}\" stroke=\"white\"/>",
            left + at,
            top + at
        );
    }
    s.push('\n');
    for (i, name) in raters.iter().enumerate() {
        if label > 0.0 {
            let c = i as f64 * cell + cell / 2.0 + 4.0;
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><text transform=\"translate({:.1},{:.1}) rotate(-60)\">{}</text>",
                left - 4.0,
                top + c,
                esc(name),
                left + c - 4.0,
                top - 4.0,
                esc(name)
            );
        }
        for (j, value) in values.get(i).into_iter().flatten().enumerate() {
            let shared = units
                .get(i)
                .and_then(|row| row.get(j))
                .copied()
                .unwrap_or(0);
            let Some(value) = value.filter(|_| shared >= min_shared) else {
                continue;
            };
            let fill = diverging(value);
            let _ = write!(
                s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{cell:.1}\" height=\"{cell:.1}\" fill=\"{fill}\" stroke=\"white\"/>",
                left + j as f64 * cell,
                top + i as f64 * cell
            );
            if cell >= 36.0 {
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{value:.2}</text>",
                    left + j as f64 * cell + cell / 2.0,
                    top + i as f64 * cell + cell / 2.0 + 4.0
                );
            }
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "<text x=\"{left:.1}\" y=\"{:.1}\">{legend}</text>",
        height - 10.0
    );
    s.push_str("</svg>\n");
    s
}

/// Grouped vertical bars: one group per category, one bar per series.
pub fn grouped_counts(title: &str, categories: &[String], series: &[(&str, Vec<usize>)]) -> String {
    let colours = ["#4c78a8", "#f58518", "#54a24b", "#b279a2"];
    let group = 30.0 * series.len().max(1) as f64 + 30.0;
    let left = 50.0;
    let top = 60.0;
    let plot_height = 200.0;
    let width = left + group * categories.len().max(1) as f64 + 20.0;
    let height = top + plot_height + 50.0;
    let max = series
        .iter()
        .flat_map(|(_, counts)| counts.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let mut s = open(width.max(360.0), height, title);
    for (k, (name, _)) in series.iter().enumerate() {
        let _ = writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"30\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"39\">{}</text>",
            left + 150.0 * k as f64,
            colours[k % colours.len()],
            left + 150.0 * k as f64 + 14.0,
            esc(name)
        );
    }
    let base = top + plot_height;
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{base}\" x2=\"{:.1}\" y2=\"{base}\" stroke=\"#444\"/>",
        width - 10.0
    );
    for (c, category) in categories.iter().enumerate() {
        let gx = left + group * c as f64 + 15.0;
        for (k, (_, counts)) in series.iter().enumerate() {
            let n = counts.get(c).copied().unwrap_or(0);
            let h = n as f64 / max * plot_height;
            let x = gx + 30.0 * k as f64;
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"26\" height=\"{h:.1}\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{n}</text>",
                base - h,
                colours[k % colours.len()],
                x + 13.0,
                base - h - 3.0
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            gx + 15.0 * series.len() as f64,
            base + 16.0,
            esc(category)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn labels_are_escaped_and_undefined_values_are_written_as_text() {
        let svg = interval_bars(
            "a < b & c",
            &[Bar {
                label: "<15 min fix".into(),
                value: None,
                interval: None,
            }],
            -1.0,
            1.0,
        );
        assert!(svg.contains("a &lt; b &amp; c"));
        assert!(svg.contains("&lt;15 min fix"));
        assert!(svg.contains(">undefined<"));
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn a_long_label_widens_the_chart_instead_of_running_off_its_left_edge() {
        let label = "gemini-2-5-pro-preview-paper determinate-only (rank 4)";
        let svg = interval_bars(
            "Rates",
            &[Bar {
                label: label.into(),
                value: Some(0.5),
                interval: Some([0.4, 0.6]),
            }],
            0.0,
            1.0,
        );
        let anchor = format!("text-anchor=\"end\">{label}<");
        let at = svg.find(&anchor).unwrap();
        let x: f64 = svg[..at]
            .rsplit("<text x=\"")
            .next()
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .parse()
            .unwrap();
        // The label ends at x and is about 7 px a character wide.
        assert!(x >= label.chars().count() as f64 * 7.0, "{x}");
    }
}
