//! Drawing the tasks humans rate: a simple random sample, or a sample whose inclusion
//! probabilities grow with a predictor's uncertainty (active inference, Zrnic and Candès 2024),
//! each task's probability known exactly so that the estimates can weigh by its inverse.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::PpiError;

/// The largest inclusion probability an uncertainty-weighted draw gives: a task drawn for
/// certain would never be among the unlabelled ones, whose weights are 1 / (1 − π).
pub const MAX_PROBABILITY: f64 = 0.9;

/// An index in `0..bound`, uniform, by rejection (no modulo bias).
fn below(rng: &mut ChaCha8Rng, bound: u64) -> u64 {
    let zone = u64::MAX - (u64::MAX % bound);
    loop {
        let v = rng.next_u64();
        if v < zone {
            return v % bound;
        }
    }
}

/// A uniform number in [0, 1) with 53 random bits.
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// 0..len in a random order drawn from `rng` (Fisher and Yates).
fn permutation(rng: &mut ChaCha8Rng, len: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    for i in (1..len).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}

/// `size` distinct positions of `0..population`, uniformly at random from `seed`, in
/// increasing order: each position's inclusion probability is size / population.
pub fn uniform_draw(population: usize, size: usize, seed: u64) -> Result<Vec<usize>, PpiError> {
    if size > population {
        return Err(PpiError(format!(
            "cannot draw {size} tasks from {population}"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut chosen: Vec<usize> = permutation(&mut rng, population)
        .into_iter()
        .take(size)
        .collect();
    chosen.sort_unstable();
    Ok(chosen)
}

/// Inclusion probabilities for a draw of `size` tasks that grow with each task's uncertainty
/// (`uncertainty[i]` ≥ 0): a `floor` share (in (0, 1]) of the draw is spread uniformly and the
/// rest in proportion to the uncertainty, so that no probability falls below `floor` times the
/// uniform one, size / population, and no weight rises above 1 / `floor` times the uniform
/// weight; a probability above [`MAX_PROBABILITY`] is held there and the excess spread over
/// the others. They sum to `size`. With no uncertainty anywhere, the draw is uniform.
pub fn uncertainty_probabilities(
    uncertainty: &[f64],
    size: usize,
    floor: f64,
) -> Result<Vec<f64>, PpiError> {
    Ok(uncertainty_probabilities_beside(uncertainty, &[], size, floor)?.0)
}

/// [`uncertainty_probabilities`] over the tasks a draw offers (`uncertainty`), and beside them
/// the probability each task of `others` would have had with the same normalisation, had it
/// been offered (a task an earlier draw took: its chance in this draw, so that a sample drawn in
/// steps has each task's probability of being in it under the whole design).
pub fn uncertainty_probabilities_beside(
    uncertainty: &[f64],
    others: &[f64],
    size: usize,
    floor: f64,
) -> Result<(Vec<f64>, Vec<f64>), PpiError> {
    let population = uncertainty.len();
    if let Some(i) = others.iter().position(|u| !(u.is_finite() && *u >= 0.0)) {
        return Err(PpiError(format!(
            "an earlier task's uncertainty ({i}) is {}, and must be a number at least 0",
            others[i]
        )));
    }
    if !(floor > 0.0 && floor <= 1.0) {
        return Err(PpiError(format!(
            "the floor is {floor}, and must lie in (0, 1]"
        )));
    }
    if let Some(i) = uncertainty
        .iter()
        .position(|u| !(u.is_finite() && *u >= 0.0))
    {
        return Err(PpiError(format!(
            "task {i}'s uncertainty is {}, and must be a number at least 0",
            uncertainty[i]
        )));
    }
    if size == 0 || population == 0 {
        return Err(PpiError("a draw needs at least one task to draw".into()));
    }
    if size as f64 > MAX_PROBABILITY * population as f64 {
        return Err(PpiError(format!(
            "a draw by uncertainty gives no task a probability above {MAX_PROBABILITY}, so it cannot draw {size} of {population} tasks; draw them uniformly"
        )));
    }
    let total: f64 = uncertainty.iter().sum();
    let share = |u: f64| -> f64 {
        if total > 0.0 {
            (1.0 - floor) * u / total + floor / population as f64
        } else {
            1.0 / population as f64
        }
    };
    let mut pi: Vec<f64> = uncertainty
        .iter()
        .map(|u| size as f64 * share(*u))
        .collect();
    // Hold the probabilities above the cap there and scale the free ones up to fill the draw,
    // until none is above: each round holds at least one more, so this ends.
    let mut held = vec![false; population];
    let mut free_scale = 1.0;
    loop {
        let over: Vec<usize> = (0..population)
            .filter(|&i| !held[i] && pi[i] > MAX_PROBABILITY)
            .collect();
        if over.is_empty() {
            break;
        }
        for i in over {
            held[i] = true;
            pi[i] = MAX_PROBABILITY;
        }
        let fixed: f64 = (0..population).filter(|&i| held[i]).map(|i| pi[i]).sum();
        let free: f64 = (0..population).filter(|&i| !held[i]).map(|i| pi[i]).sum();
        let scale = (size as f64 - fixed) / free;
        free_scale *= scale;
        for i in (0..population).filter(|&i| !held[i]) {
            pi[i] *= scale;
        }
    }
    let beside = others
        .iter()
        .map(|u| (size as f64 * share(*u) * free_scale).min(MAX_PROBABILITY))
        .collect();
    Ok((pi, beside))
}

/// A draw with the given inclusion probabilities (summing to a whole number n, each in
/// [0, 1]): systematic sampling over an order drawn from `seed`, which takes exactly n tasks
/// and each with its probability. The positions drawn, in increasing order.
pub fn systematic_draw(probabilities: &[f64], seed: u64) -> Result<Vec<usize>, PpiError> {
    if let Some(i) = probabilities
        .iter()
        .position(|p| !(p.is_finite() && (0.0..=1.0).contains(p)))
    {
        return Err(PpiError(format!(
            "probability {i} is {}, outside [0, 1]",
            probabilities[i]
        )));
    }
    let total: f64 = probabilities.iter().sum();
    let size = total.round();
    if (total - size).abs() > 1e-6 {
        return Err(PpiError(format!(
            "the probabilities sum to {total}, not to a whole number of tasks"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let order = permutation(&mut rng, probabilities.len());
    let start = unit(&mut rng);
    // The k-th point is start + k on the cumulative scale, rescaled so that it ends at n
    // exactly: a task is drawn when a point falls in its stretch.
    let scale = size / total;
    let mut chosen = Vec::with_capacity(size as usize);
    let mut before = 0.0;
    let mut next = start;
    for (k, &i) in order.iter().enumerate() {
        let after = if k + 1 == order.len() {
            size
        } else {
            before + probabilities[i] * scale
        };
        if next < after && next < size {
            chosen.push(i);
            next += 1.0;
        }
        before = after;
    }
    chosen.sort_unstable();
    Ok(chosen)
}

/// Each task's probability of being in a sample drawn in steps, from the probability each step
/// gave it among the tasks still undrawn (`None` where a step did not offer it): one minus the
/// chance that every step passed it by.
pub fn combined_probability(steps: impl IntoIterator<Item = f64>) -> f64 {
    1.0 - steps.into_iter().map(|p| 1.0 - p).product::<f64>()
}

/// The superpopulation design's weights from inclusion probabilities: 1/π for each labelled
/// task and 1/(1 − π) for each unlabelled one, so that each set, weighed, stands for the whole
/// population (ppi-python normalises both).
pub fn superpopulation_weights(labelled: &[f64], unlabelled: &[f64]) -> (Vec<f64>, Vec<f64>) {
    (
        labelled.iter().map(|p| 1.0 / p).collect(),
        unlabelled.iter().map(|p| 1.0 / (1.0 - p)).collect(),
    )
}
