//! Live progress: on a shared server, other sessions append answer events while the project is
//! open. The project's answer feed tells of each; a thread forwards them to the window as the
//! [`ANSWERS_CHANGED`] event, a burst coalesced into at most one event per [`GAP`], so the
//! coordinator's views refresh without polling. The thread ends with the feed, or when another
//! project replaces the one it watches.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use annotations::ops::AnswersChanged;
use tauri::{AppHandle, Emitter};

/// The event the window receives when other sessions changed answers (no payload).
pub const ANSWERS_CHANGED: &str = "answers-changed";

/// The shortest time between two events: a burst of changes refreshes a view once.
pub const GAP: Duration = Duration::from_millis(250);

/// How often a quiet watcher checks that its project is still the open one.
const CHECK: Duration = Duration::from_secs(1);

/// Which opening of a project is current: each project opened takes the next number, and a
/// watcher runs only while its number is the current one.
#[derive(Debug, Default, Clone)]
pub struct Generation(Arc<AtomicU64>);

impl Generation {
    /// Starts the next opening and returns its number; watchers of earlier ones stop.
    pub fn next(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// True while `number` is the current opening.
    pub fn is_current(&self, number: u64) -> bool {
        self.0.load(Ordering::SeqCst) == number
    }
}

/// Watches the project opened as `opening` on a thread of its own, emitting [`ANSWERS_CHANGED`]
/// to the window for each change of its feed.
pub fn watch(app: AppHandle, feed: Receiver<AnswersChanged>, generation: Generation, opening: u64) {
    let started = std::thread::Builder::new()
        .name("answer-feed".into())
        .spawn(move || {
            forward(
                &feed,
                GAP,
                CHECK,
                || generation.is_current(opening),
                || {
                    if let Err(err) = app.emit(ANSWERS_CHANGED, ()) {
                        tracing::warn!(error = %err, "could not tell the window of new answers");
                    }
                },
            );
        });
    if let Err(err) = started {
        tracing::warn!(error = %err, "could not watch the server for new answers");
    }
}

/// Calls `emit` once for each change of `feed`, but at most once per `gap`: the first change
/// after a quiet spell at once, the rest of a burst once when the gap has passed. Returns when
/// the feed ends (after telling of a change still pending) or when `live` turns false, which it
/// asks at least every `check`.
pub fn forward(
    feed: &Receiver<AnswersChanged>,
    gap: Duration,
    check: Duration,
    live: impl Fn() -> bool,
    mut emit: impl FnMut(),
) {
    let mut last: Option<Instant> = None;
    loop {
        match feed.recv_timeout(check) {
            Ok(AnswersChanged) => {}
            Err(RecvTimeoutError::Timeout) if live() => continue,
            Err(_) => return,
        }
        let mut ended = false;
        if let Some(due) = last.map(|at| at + gap) {
            // Take the rest of the burst until the gap has passed.
            while let Some(left) = due.checked_duration_since(Instant::now()) {
                match feed.recv_timeout(left) {
                    Ok(AnswersChanged) => {}
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => {
                        ended = true;
                        std::thread::sleep(left);
                        break;
                    }
                }
            }
        }
        if !live() {
            return;
        }
        emit();
        last = Some(Instant::now());
        if ended {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{Sender, channel};
    use std::sync::{Arc, Mutex};
    use std::thread::{JoinHandle, sleep, spawn};

    const TEST_GAP: Duration = Duration::from_millis(200);
    const TEST_CHECK: Duration = Duration::from_millis(20);

    /// A forwarder on a thread, fed through the returned sender, counting its emits.
    fn forwarder(
        live: Arc<AtomicU64>,
    ) -> (
        Sender<AnswersChanged>,
        Arc<Mutex<Vec<Instant>>>,
        JoinHandle<()>,
    ) {
        let (send, feed) = channel();
        let emitted = Arc::new(Mutex::new(Vec::new()));
        let sink = emitted.clone();
        let thread = spawn(move || {
            forward(
                &feed,
                TEST_GAP,
                TEST_CHECK,
                || live.load(Ordering::SeqCst) == 1,
                || sink.lock().expect("the test's lock").push(Instant::now()),
            );
        });
        (send, emitted, thread)
    }

    fn count(emitted: &Mutex<Vec<Instant>>) -> usize {
        emitted.lock().expect("the test's lock").len()
    }

    /// The times of the first `n` emits, waiting for them (a busy machine may be slow).
    fn wait_for(emitted: &Mutex<Vec<Instant>>, n: usize) -> Vec<Instant> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while count(emitted) < n && Instant::now() < deadline {
            sleep(TEST_CHECK);
        }
        let times = emitted.lock().expect("the test's lock").clone();
        assert!(times.len() >= n, "{n} emits expected, {} seen", times.len());
        times
    }

    #[test]
    fn a_burst_is_told_at_once_and_then_once_more_after_the_gap() {
        let (send, emitted, thread) = forwarder(Arc::new(AtomicU64::new(1)));
        for _ in 0..20 {
            send.send(AnswersChanged).expect("the forwarder listens");
        }
        let times = wait_for(&emitted, 2);
        assert!(
            times[1] - times[0] >= TEST_GAP,
            "the rest waits for the gap"
        );
        sleep(TEST_GAP * 2);
        assert_eq!(count(&emitted), 2, "the rest of the burst is told once");

        // After a quiet spell a change is told at once, so a second one right behind it waits
        // for the gap and is told apart: two more emits, where a change held back would have
        // been told together with the next in one. Only the order and the count are checked,
        // never how soon, so a slow machine cannot fail it.
        send.send(AnswersChanged).expect("the forwarder listens");
        send.send(AnswersChanged).expect("the forwarder listens");
        drop(send);
        thread.join().expect("the forwarder ends with its feed");
        let times = wait_for(&emitted, 4);
        assert_eq!(times.len(), 4, "each of the two is told");
        assert!(
            times[3] - times[2] >= TEST_GAP,
            "the second waits for the gap"
        );
    }

    #[test]
    fn a_change_pending_when_the_feed_ends_is_still_told_after_the_gap() {
        let (send, emitted, thread) = forwarder(Arc::new(AtomicU64::new(1)));
        send.send(AnswersChanged).expect("the forwarder listens");
        wait_for(&emitted, 1);
        send.send(AnswersChanged).expect("the forwarder listens");
        drop(send);
        thread.join().expect("the forwarder ends with its feed");
        let times = wait_for(&emitted, 2);
        assert_eq!(times.len(), 2);
        assert!(times[1] - times[0] >= TEST_GAP);
    }

    #[test]
    fn a_replaced_project_stops_its_forwarder_and_tells_nothing_more() {
        let live = Arc::new(AtomicU64::new(1));
        let (send, emitted, thread) = forwarder(live.clone());
        send.send(AnswersChanged).expect("the forwarder listens");
        wait_for(&emitted, 1);
        live.store(2, Ordering::SeqCst);
        // The feed is still open: the forwarder notices on its own that it is no longer live.
        thread.join().expect("the forwarder stops");
        assert_eq!(count(&emitted), 1);
        assert!(send.send(AnswersChanged).is_err(), "the feed was dropped");
    }

    #[test]
    fn each_opening_is_current_until_the_next() {
        let generation = Generation::default();
        let first = generation.next();
        assert!(generation.is_current(first));
        let second = generation.next();
        assert!(!generation.is_current(first));
        assert!(generation.is_current(second));
    }
}
