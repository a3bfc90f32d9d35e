//! A listener on 127.0.0.1 that hands each connection to a handler on a thread of its own until
//! dropped: what the test servers (`hub_server`, `chat_server`) share.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::HashMap;
use std::io::BufRead;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

pub struct Loopback {
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Loopback {
    /// Listens on `address` (a port of 0 picks a free one); `handle` gets each connection and
    /// the flag that says the server is stopping.
    pub fn serve(
        address: &str,
        handle: impl Fn(TcpStream, &AtomicBool) + Send + Sync + 'static,
    ) -> Loopback {
        let listener = TcpListener::bind(address).unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let handle = Arc::new(handle);
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            stream.set_nonblocking(false).unwrap();
                            let handle = handle.clone();
                            let stop = stop.clone();
                            std::thread::spawn(move || handle(stream, &stop));
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            })
        };
        Loopback {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An HTTP request's headers, after its request line: names in lower case.
pub fn read_headers(reader: &mut impl BufRead) -> HashMap<String, String> {
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            return headers;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
}
