//! The connection that listens for other sessions' answers.

use std::sync::mpsc::Sender;
use std::time::Duration;

use futures_util::StreamExt;
use tokio_postgres::AsyncMessage;

use crate::AnswersChanged;

/// Listens on `verity_answers` and sends one message per notification, until the store is
/// dropped (`closed`) or nobody holds the receiver; `ready` hears once the first LISTEN is in
/// place (or why it could not be). A lost connection is made again after a pause, and one
/// message follows it: changes may have been missed meanwhile.
pub(super) async fn listen(
    config: tokio_postgres::Config,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
    send: Sender<AnswersChanged>,
    ready: std::sync::mpsc::SyncSender<Result<(), String>>,
    mut closed: tokio::sync::watch::Receiver<()>,
    server: String,
) {
    loop {
        let connected = tokio::select! {
            _ = closed.changed() => return,
            connected = config.connect(tls.clone()) => connected,
        };
        match connected {
            Ok((client, mut connection)) => {
                let mut messages =
                    futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                let listening = client.batch_execute("LISTEN verity_answers");
                let mut listening = std::pin::pin!(listening);
                let mut subscribed = false;
                loop {
                    tokio::select! {
                        _ = closed.changed() => return,
                        done = &mut listening, if !subscribed => {
                            if let Err(e) = done {
                                let _ = ready.try_send(Err(e.to_string()));
                                break;
                            }
                            subscribed = true;
                            // Only the first LISTEN is waited for; later ones find it full.
                            let _ = ready.try_send(Ok(()));
                        }
                        message = messages.next() => match message {
                            Some(Ok(AsyncMessage::Notification(_))) => {
                                if send.send(AnswersChanged).is_err() {
                                    return;
                                }
                            }
                            Some(Ok(_)) => {}
                            Some(Err(_)) | None => break,
                        }
                    }
                }
                tracing::debug!(%server, "the answer feed's connection ended; connecting again");
            }
            Err(e) => {
                let _ = ready.try_send(Err(e.to_string()));
                tracing::debug!(%server, error = %e, "the answer feed cannot connect yet");
            }
        }
        tokio::select! {
            _ = closed.changed() => return,
            _ = tokio::time::sleep(Duration::from_secs(2)) => {}
        }
        if send.send(AnswersChanged).is_err() {
            return;
        }
    }
}
