//! What the lists keep between pages while the project is unchanged: the case list in natural
//! id order, the last rater's progress, every case's risk and the disagreements. A file project
//! says cheaply whether anything changed since (`store::ChangeStamp`); a server does not, and
//! what it asks for is worked out for each page.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::adjudication::Disagreement;
use super::status::AnswerStatus;
use super::sweep_access::visible_sweep_tiers;
use super::{Project, Result, natural_cmp};
use verity_evidence::{ENGINE_VERSION, SweepEffect, with_sweep};
use verity_store::{CaseRow, ChangeStamp, PairScope};

/// What is kept between pages: the case list, the last rater's progress, the risks and the
/// disagreements.
#[derive(Debug, Default)]
pub(super) struct ListingCache(Mutex<Kept>);

#[derive(Debug, Default)]
pub(super) struct Kept {
    catalog: Option<Arc<Catalog>>,
    progress: Option<KeptProgress>,
    pub(super) disagreements: KeptSlot<Vec<Disagreement>>,
    risks: KeptSlot<Risks>,
}

/// Each case's risk, by case row id.
pub(super) type Risks = HashMap<i64, CaseRisk>;

/// A case's risk: its evidence's, moved by its sweep where the actor may read one.
#[derive(Debug, Clone, Copy)]
pub(super) struct CaseRisk {
    pub(super) evidence: Option<f64>,
    pub(super) sweep: Option<SweepEffect>,
}

impl CaseRisk {
    pub(super) fn risk(&self) -> Option<f64> {
        self.sweep.map_or(self.evidence, |s| s.risk)
    }
}

/// The evidence's risk scores (`(case row id, risk)`) with the sweeps the actor may read, of
/// every case or of `cases` only (a page).
pub(super) fn with_sweeps(
    project: &Project,
    evidence: Vec<(i64, f64)>,
    cases: Option<&[i64]>,
) -> Result<Risks> {
    let mut risks: Risks = evidence
        .into_iter()
        .map(|(case_id, risk)| {
            (
                case_id,
                CaseRisk {
                    evidence: Some(risk),
                    sweep: None,
                },
            )
        })
        .collect();
    for (case_id, tiers) in visible_sweep_tiers(project, cases)? {
        let entry = risks.entry(case_id).or_insert(CaseRisk {
            evidence: None,
            sweep: None,
        });
        entry.sweep = with_sweep(entry.evidence, &tiers);
    }
    Ok(risks)
}

/// A value kept while the project is unchanged, with the stamp it was worked out at.
pub(super) type KeptSlot<T> = Option<(ChangeStamp, Arc<T>)>;

#[derive(Debug)]
struct KeptProgress {
    rater_id: i64,
    stamp: ChangeStamp,
    pairs: Arc<RaterProgress>,
}

/// Every case, in natural id order, as of a listing version.
#[derive(Debug)]
pub(super) struct Catalog {
    version: i64,
    pub(super) cases: Vec<CaseRow>,
}

/// A rater's status and active time per case row id.
pub(super) type RaterProgress = HashMap<i64, (AnswerStatus, i64)>;

impl ListingCache {
    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // What is kept is a copy of the store's rows: a panic elsewhere leaves it consistent.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The case list, read again when a case or a revision was added since it was kept.
pub(super) fn catalog(project: &Project) -> Result<Arc<Catalog>> {
    let version = project.store.listing_version()?;
    if let Some(kept) = &project.listing.kept().catalog
        && kept.version == version
    {
        return Ok(Arc::clone(kept));
    }
    let mut cases = project.store.list_cases()?;
    cases.sort_by(|a, b| natural_cmp(&a.instance_id, &b.instance_id));
    let catalog = Arc::new(Catalog { version, cases });
    project.listing.kept().catalog = Some(Arc::clone(&catalog));
    Ok(catalog)
}

/// One rater's progress, kept while nothing in the project changes.
pub(super) fn rater_progress(project: &Project, rater_id: i64) -> Result<Arc<RaterProgress>> {
    let stamp = project.store.change_stamp()?;
    if let (Some(stamp), Some(kept)) = (stamp, &project.listing.kept().progress)
        && kept.rater_id == rater_id
        && kept.stamp == stamp
    {
        return Ok(Arc::clone(&kept.pairs));
    }
    let pairs: Arc<RaterProgress> = Arc::new(
        project
            .store
            .pair_progress(PairScope::Rater(rater_id))?
            .into_iter()
            .map(|p| (p.case_id, (p.state.into(), p.active_ms)))
            .collect(),
    );
    project.listing.kept().progress = stamp.map(|stamp| KeptProgress {
        rater_id,
        stamp,
        pairs: Arc::clone(&pairs),
    });
    Ok(pairs)
}

/// Each case's risk: the evidence's score for its latest revision and this engine, moved by
/// its sweep; read once per change of the project, not for every page.
pub(super) fn case_risks(project: &Project) -> Result<Arc<Risks>> {
    kept_while_unchanged(
        project,
        |k| &mut k.risks,
        || {
            with_sweeps(
                project,
                project.store.case_risks(ENGINE_VERSION, None)?,
                None,
            )
        },
    )
}

/// What `work` gives, kept in `slot` while nothing in the project changes (a store that cannot
/// tell, a server, works it out each time).
pub(super) fn kept_while_unchanged<T>(
    project: &Project,
    slot: fn(&mut Kept) -> &mut KeptSlot<T>,
    work: impl FnOnce() -> Result<T>,
) -> Result<Arc<T>> {
    let stamp = project.store.change_stamp()?;
    if let (Some(stamp), Some((kept_stamp, kept))) = (stamp, &*slot(&mut project.listing.kept()))
        && *kept_stamp == stamp
    {
        return Ok(Arc::clone(kept));
    }
    let value = Arc::new(work()?);
    *slot(&mut project.listing.kept()) = stamp.map(|stamp| (stamp, Arc::clone(&value)));
    Ok(value)
}
